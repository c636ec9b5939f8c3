"""Configuration precedence, the backend table, and `bandstand agents check`."""

from __future__ import annotations

import json

import pytest

from bandstand.agents.claude_code import ClaudeCodeBackend
from bandstand.agents.config import BACKEND_NAMES, load_config
from bandstand.agents.openai_backend import OpenAIBackend
from bandstand.agents.registry import BUILDERS, check_backends, make_backend
from bandstand.cli import run
from bandstand.errors import ConfigError
from tests.peers.openai_server import OpenAIServer

TOML = """
[agents]
backend = "openai"
turn_timeout = 12

[agents.openai]
base_url = "http://127.0.0.1:1/v1"
model = "from-file"

[agents.claude-code]
bin = "my-claude"
"""


def test_file_env_and_flags_in_order(tmp_path) -> None:
    path = tmp_path / "bandstand.toml"
    path.write_text(TOML)
    config = load_config(path, env={})
    assert (config.backend, config.turn_timeout, config.openai.model) == ("openai", 12, "from-file")
    assert config.claude_code.bin == "my-claude" and config.source == str(path)
    env = {"BANDSTAND_OPENAI_MODEL": "from-env", "BANDSTAND_CLAUDE_BIN": "/opt/claude"}
    config = load_config(path, env=env)
    assert config.openai.model == "from-env" and config.claude_code.bin == "/opt/claude"
    config = load_config(path, env=env, overrides={"openai.model": "from-flag", "backend": None})
    assert config.openai.model == "from-flag" and config.backend == "openai"


def test_config_from_env_var_and_defaults(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_config(env={}).backend == "algorithmic"
    path = tmp_path / "elsewhere.toml"
    path.write_text(TOML)
    assert load_config(env={"BANDSTAND_CONFIG": str(path)}).backend == "openai"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[agents.openai]\nmodle = 'x'\n", "agents.openai.modle"),
        ("[agents]\nturn_timeout = 'soon'\n", "agents.turn_timeout"),
        ("[agents\n", "not valid TOML"),
    ],
)
def test_bad_config_is_one_clear_error(tmp_path, text: str, match: str) -> None:
    path = tmp_path / "bandstand.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_config(path, env={})


def test_make_backend_from_config(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./bandstand.toml
    config = load_config(
        env={"OPENAI_BASE_URL": "http://127.0.0.1:5/v1", "BANDSTAND_CLAUDE_BIN": "x"}
    )
    openai = make_backend("openai", config)
    assert isinstance(openai, OpenAIBackend) and openai.base_url == "http://127.0.0.1:5/v1"
    assert isinstance(make_backend("claude-code", config), ClaudeCodeBackend)
    with pytest.raises(ConfigError, match="unknown backend 'gpt'"):
        make_backend("gpt", config)


def test_the_names_a_config_accepts_are_the_backends_the_registry_builds() -> None:
    assert tuple(BUILDERS) == BACKEND_NAMES


def test_check_reports_what_is_missing(tmp_path, monkeypatch, claude_bin) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(env={"BANDSTAND_CLAUDE_BIN": str(tmp_path / "none")})
    status = {s.name: s for s in check_backends(config, env={})}
    assert list(status) == list(BACKEND_NAMES)
    assert status["algorithmic"].usable
    assert (
        not status["claude-code"].usable and "BANDSTAND_CLAUDE_BIN" in status["claude-code"].detail
    )
    assert not status["anthropic"].usable and "ANTHROPIC_API_KEY" in status["anthropic"].detail
    env = {"BANDSTAND_CLAUDE_BIN": str(claude_bin), "OPENAI_API_KEY": "k"}
    status = {s.name: s for s in check_backends(load_config(env=env), env=env)}
    assert status["claude-code"].usable and "2.1.330" in status["claude-code"].detail
    assert status["openai"].usable


def test_cli_check_with_probe(
    tmp_path, monkeypatch, capsys, claude_bin, openai_server: OpenAIServer
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BANDSTAND_CLAUDE_BIN", str(claude_bin))
    monkeypatch.setenv("BANDSTAND_PID_DIR", str(tmp_path / "pids"))
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    assert run(["agents", "check", "--json", "--probe"]) == 0
    rows = {r["backend"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["claude-code"]["probe"].startswith("answered")
    assert rows["openai"]["probe"].startswith("answered")
    assert rows["algorithmic"]["probe"].startswith("answered")
    assert not rows["anthropic"]["usable"] and "probe" not in rows["anthropic"]
    assert run(["agents", "check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("ok  algorithmic") and any(
        line.startswith("no  anthropic") for line in lines
    )


def test_cli_bad_config_exits_2(tmp_path, capsys) -> None:
    bad = tmp_path / "bandstand.toml"
    bad.write_text("[agents]\nbackend = 3\n")
    assert run(["agents", "check", "--config", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "agents.backend" in err[0]


@pytest.mark.parametrize(
    ("table", "match"),
    [
        ("[agents.openai]\njson_mode = 'sometimes'\n", "agents.openai.json_mode"),
        ("[agents.anthropic]\njson_via = 'magic'\n", "agents.anthropic.json_via"),
    ],
)
def test_enumerated_settings_are_checked(tmp_path, table: str, match: str) -> None:
    path = tmp_path / "bandstand.toml"
    path.write_text(table)
    with pytest.raises(ConfigError, match=match):
        load_config(path, env={})


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("agents = 5\n", r"'agents' must be a table"),
        ("[agents]\nturn_timeout = -1\n", r"agents\.turn_timeout: Input should be greater than 0"),
        ("[agents]\nturn_timeout = 1e999\n", r"agents\.turn_timeout: Input should be a finite number"),
        ("[agents]\nbackend = 'nosuch'\n", r"agents\.backend: unknown backend 'nosuch'; use one of algorithmic"),
        ("[agents.breaker]\nretries = -2\n", r"agents\.breaker\.retries"),
        ("[agents.breaker]\nthreshold = 0\n", r"agents\.breaker\.threshold"),
    ],
)
def test_impossible_settings_are_one_clear_error(tmp_path, text: str, match: str) -> None:
    path = tmp_path / "bandstand.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=match):
        load_config(path, env={})


def test_a_config_that_is_not_utf8_or_is_a_folder_is_one_clear_error(tmp_path, capsys) -> None:
    path = tmp_path / "bandstand.toml"
    path.write_bytes(b"\xff\xfe[agents]\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path, env={})
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path, env={})
    assert run(["agents", "check", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "internal error" not in err[0]


def test_a_bad_environment_variable_is_named(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./bandstand.toml
    with pytest.raises(ConfigError, match=r"^BANDSTAND_BACKEND='nope': unknown backend 'nope'.*unset BANDSTAND_BACKEND$"):
        load_config(env={"BANDSTAND_CONFIG": "", "BANDSTAND_BACKEND": "nope"}, path=None)
    with pytest.raises(ConfigError, match=r"^BANDSTAND_TURN_TIMEOUT='0'"):
        load_config(env={"BANDSTAND_TURN_TIMEOUT": "0"})
    # a flag that overrides the variable is what is blamed
    with pytest.raises(ConfigError, match=r"^configuration: agents\.backend"):
        load_config(env={"BANDSTAND_BACKEND": "openai"}, overrides={"backend": "nope"})


def test_a_failed_probe_marks_the_backend_unusable(tmp_path, monkeypatch, capsys) -> None:
    # it used to print "ok  openai … [probe: failed: …]"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")  # nothing listens on port 1
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("BANDSTAND_CLAUDE_BIN", str(tmp_path / "no-claude"))
    assert run(["agents", "check", "--probe"]) == 0
    lines = capsys.readouterr().out.splitlines()
    openai = next(line for line in lines if " openai " in line)
    assert openai.startswith("no  openai") and "[probe: failed:" in openai
    assert lines[0].startswith("ok  algorithmic") and "[probe: answered" in lines[0]
