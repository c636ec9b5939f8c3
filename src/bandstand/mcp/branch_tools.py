"""The branch tools over MCP, rows like `band_tools`' (a parameter model whose docstring is
the description, a body calling `App`'s branch use cases exactly as the CLI command of the same
job does, answering what its `--json` prints)."""

from __future__ import annotations

from pydantic import Field

from bandstand.mcp.band import Answer, Band
from bandstand.mcp.band_tools import BandTool, ProjectParams
from bandstand.producer import App
from bandstand.producer.app import BranchRequest, CheckoutRequest, Control, MergeRequest

__all__ = ["BRANCH_TOOLS"]


class ListBranchesParams(ProjectParams):
    """The project's branches (the current one marked, each with its head) and its history as a graph, newest
    first: each revision's lane, the branches whose head it is, and the change in words."""


class CreateBranchParams(ProjectParams):
    """Make a branch at HEAD and switch to it: later changes land on it, and the other branches keep theirs."""

    name: str = Field(max_length=200, description="The branch's name: letters, digits, '-', '_' or '.'.")


class CheckoutParams(ProjectParams):
    """Switch to a branch (the song becomes its head: export, the page and later edits see it), or go to a
    revision (3 or r3)."""

    target: str = Field(max_length=200, description="A branch name, or a revision number.")


class MergeBranchParams(ProjectParams):
    """Make another branch's changes on the current branch as one revision (undoable). Refused, naming each part,
    section or setting both branches changed, when they overlap."""

    branch: str = Field(max_length=200, description="The branch to merge into the current one.")


def _list(band: Band, p: ListBranchesParams, control: Control) -> Answer:
    data = App.over(band.library).branches(p.project, graph=True)
    return Answer({"project": data["projectId"], **data})


def _create(band: Band, p: CreateBranchParams, control: Control) -> Answer:
    app = App.over(band.library)
    app.branch(BranchRequest(p.project, p.name))
    data = app.branches(p.project)
    return Answer({"project": data["projectId"], **data})


def _checkout(band: Band, p: CheckoutParams, control: Control) -> Answer:
    app = App.over(band.library)
    moved = app.checkout(CheckoutRequest(p.project, p.target))
    folder = app.session(p.project).session_dir
    return Answer({"project": folder.name, "branch": moved.branch, "revision": moved.revision}, band.links(folder))


def _merge(band: Band, p: MergeBranchParams, control: Control) -> Answer:
    app = App.over(band.library)
    entry = app.merge(MergeRequest(p.project, p.branch, author="mcp"))
    folder = app.session(p.project).session_dir
    return Answer({"project": folder.name, "revision": entry.revision, "branch": entry.branch,
                   "merged": entry.merged, "summary": entry.summary,
                   "changes": [c.model_dump(mode="json") for c in entry.changes]}, band.links(folder))


BRANCH_TOOLS: tuple[BandTool, ...] = (
    BandTool("list_branches", ListBranchesParams, _list, read_only=True),
    BandTool("create_branch", CreateBranchParams, _create),
    BandTool("checkout", CheckoutParams, _checkout),
    BandTool("merge_branch", MergeBranchParams, _merge),
)
