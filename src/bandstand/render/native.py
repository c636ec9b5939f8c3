"""The render's compiled kernels kept as machine code and loaded without numba's runtime.

numba compiles the synthesizer (`bandstand.render.sf2.engine.step`) and the render's other
kernels (`bandstand.render.jit`) once and caches them, but every new process that calls them
still pays numba's own start: its import, its CPU target's set-up (about 80 of its modules
imported for their typing and lowering tables, its reference-counting module compiled) and the
cached entry points loaded — about 0.5–0.65 s of CPU, the whole cost of a short song's
`bandstand render` above FluidSynth's, and the render of a compose waiting for it.

So, once numba has compiled a kernel, `build` compiles a C entry point around it (each array
passed as its data pointer, shape and strides; each scalar as itself) and keeps that
function's object code — the kernel and every helper it calls, linked into it — in the cache
folder beside the SoundFont tables (`bandstand.render.sf2.table.cache_folder`), with a list of
the symbols it needs from outside (numba's C helpers, libm). `kernel(name)` loads it in a later
process with llvmlite alone (numba's code generator, a small library) and numba's two C
helper modules read from their files, not through `import numba`: about 50 ms. The machine code
is the same code numba would run, so the output is the same bits (`tests/render/test_native.py`
plays songs both ways and compares the bytes).

A kept object is valid for one set of inputs, hashed into its file name: the sources of the
kernels (the modules of `bandstand.render.sf2`, `bandstand.render.jit` and this one), numba's
and llvmlite's versions, Python's, and the host CPU (its name and features: the code is built
for it). Anything else — no llvmlite, no numba to build with, `NUMBA_DISABLE_JIT` set, a cache
folder that cannot be written, an object whose bytes do not match the checksum kept beside it
(LLVM's loader does not refuse a damaged object, it crashes on it), one that does not load or
misses a symbol — and the callers use numba as before (`kernel` returns None);
`BANDSTAND_NATIVE=0` does the same on purpose. Calls through ctypes release the
interpreter lock, as numba's `nogil` kernels do.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import glob
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["ENV", "build", "disabled", "kernel", "key", "load"]

ENV = "BANDSTAND_NATIVE"
_SOURCES = ("sf2/engine.py", "sf2/voices.py", "sf2/voice.py", "sf2/envelope.py", "sf2/layout.py", "jit.py", "native.py")
_DTYPES = {"int64": np.int64, "int32": np.int32, "int16": np.int16, "float32": np.float32, "float64": np.float64}
_CTYPES: dict[str, Any] = {"int64": ctypes.c_int64, "float32": ctypes.c_float, "float64": ctypes.c_double,
                           "bool": ctypes.c_int64}
_LOCK = threading.RLock()
_LOADED: dict[str, Callable[..., Any] | None] = {}
_ENGINES: list[Any] = []  # llvmlite execution engines: the code lives as long as they do


def disabled() -> bool:
    """`NUMBA_DISABLE_JIT` set: the kernels are to run as Python (tests of the fallbacks)."""
    return os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0")


def _off() -> bool:
    """`BANDSTAND_NATIVE=0`: numba's way only, nothing kept or loaded (to compare the two)."""
    return disabled() or os.environ.get(ENV, "1").strip() == "0"


def _folder() -> Path | None:
    from bandstand.render.sf2.table import cache_folder

    base = cache_folder()
    return None if base is None else base / "native"


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "none"


_KEY: list[str] = []
_MEMO = "keys.json"  # in the cache folder: the key of each stamp seen lately
_MEMO_SIZE = 16


def key() -> str | None:
    """The hash naming the kept objects valid here and now (None without llvmlite).

    It hashes the kernels' sources, so a process would read them all and look up two packages'
    versions on every start (about 15 ms of CPU). Instead the key is remembered in the cache
    folder under a stamp of the same inputs as Python's own bytecode cache trusts them — each
    source's size and modification time in nanoseconds, those of numba's and llvmlite's
    `__init__.py` (an upgrade rewrites them), Python's version and the host CPU: a source that
    changes changes the stamp, and the key is worked out afresh."""
    if _KEY:
        return _KEY[0]
    try:
        import llvmlite.binding as ll
    except ImportError:
        return None
    here = Path(__file__).resolve().parent
    host = ll.get_process_triple() + ll.get_host_cpu_name() + ll.get_host_cpu_features().flatten()
    folder = _folder()
    try:
        stamp = _stamp(here, host)
    except OSError:
        stamp, folder = "", None
    memo: dict[str, str] = {}
    if folder is not None:
        try:
            loaded = json.loads((folder / _MEMO).read_bytes())
            memo = {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, str)}
        except (OSError, ValueError, AttributeError):
            memo = {}
    if stamp in memo:
        _KEY.append(memo[stamp])
        return _KEY[0]
    digest = hashlib.sha256()
    for name in _SOURCES:
        digest.update(name.encode() + b"\0" + (here / name).read_bytes())
    for part in (_version("numba"), _version("llvmlite"), sys.version, host):
        digest.update(part.encode() + b"\0")
    _KEY.append(digest.hexdigest()[:24])
    if folder is not None:
        from bandstand.files import write_bytes

        memo = {k: v for k, v in list(memo.items())[-(_MEMO_SIZE - 1) :]}
        memo[stamp] = _KEY[0]
        with contextlib.suppress(OSError):  # an unwritable cache: the key is worked out again next time
            folder.mkdir(parents=True, exist_ok=True)
            write_bytes(folder / _MEMO, json.dumps(memo).encode())
    return _KEY[0]


def _stamp(here: Path, host: str) -> str:
    """What `key` depends on, cheaply: the sources' and packages' sizes and times, Python, the CPU."""
    parts = [here.as_posix(), sys.version, host]
    for name in _SOURCES:
        found = (here / name).stat()
        parts.append(f"{name} {found.st_size} {found.st_mtime_ns}")
    for package in ("numba", "llvmlite"):
        spec = importlib.util.find_spec(package) if package not in sys.modules else sys.modules[package].__spec__
        origin = spec.origin if spec is not None else None
        if origin is None:
            parts.append(f"{package} none")
        else:
            found = Path(origin).stat()
            parts.append(f"{package} {origin} {found.st_size} {found.st_mtime_ns}")
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def _files(name: str) -> tuple[Path, Path] | None:
    folder, k = _folder(), key()
    if folder is None or k is None:
        return None
    return folder / f"{name}-{k}.o", folder / f"{name}-{k}.json"


# -- loading, without numba ---------------------------------------------------------------------

def _extension(module: str, pattern: str) -> Any:
    """One of numba's C extension modules, read from its file without importing the package."""
    found = sys.modules.get(module)
    if found is not None:
        return found
    spec = importlib.util.find_spec("numba") if "numba" not in sys.modules else sys.modules["numba"].__spec__
    if spec is None or spec.origin is None:
        raise ImportError("numba is not installed")
    paths = glob.glob(str(Path(spec.origin).parent / pattern))
    if not paths:
        raise ImportError(f"numba has no {pattern}")
    loader = importlib.machinery.ExtensionFileLoader(module, paths[0])
    made = importlib.util.spec_from_file_location(module, paths[0], loader=loader)
    if made is None:
        raise ImportError(f"cannot load {paths[0]}")
    loaded = importlib.util.module_from_spec(made)
    loader.exec_module(loaded)
    return loaded


_LINKER: list[Any] = []


def _linker() -> Any:
    """llvmlite, its native target set up, and the symbols numba's code calls into registered
    (numba's helpers as `numba_*`, its runtime as `NRT_*`, the names numba gives them)."""
    if _LINKER:
        return _LINKER[0]
    import llvmlite.binding as ll

    ll.initialize_native_target()
    ll.initialize_native_asmprinter()
    helpers = _extension("numba._helperlib", "_helperlib*.so")
    runtime = _extension("numba.core.runtime._nrt_python", "core/runtime/_nrt_python*.so")
    for name, address in helpers.c_helpers.items():
        ll.add_symbol(f"numba_{name}", address)
    for name, address in runtime.c_helpers.items():
        ll.add_symbol(f"NRT_{name}", address)
    machine = ll.Target.from_default_triple().create_target_machine(
        cpu=ll.get_host_cpu_name(), features=ll.get_host_cpu_features().flatten(), opt=3,
        codemodel="jitdefault", jit=True)
    _LINKER.append((ll, machine))
    return _LINKER[0]


def kernel(name: str) -> Callable[..., Any] | None:
    """The kept kernel `name` ("engine.step", "jit.sosfilt32", …) as a function taking what the
    numba one takes (numpy arrays of its dtypes and dimensions, scalars), or None when there is
    no valid object for it here (see the module's notes)."""
    if _off():
        return None
    with _LOCK:
        if name not in _LOADED:
            _LOADED[name] = load(name)
        return _LOADED[name]


def load(name: str) -> Callable[..., Any] | None:
    """`kernel` without its memory: the kept object read and linked again (None as there)."""
    files = _files(name)
    if files is None or not files[0].is_file() or not files[1].is_file():
        return None
    try:
        meta = json.loads(files[1].read_text(encoding="utf-8"))
        code = files[0].read_bytes()
        if hashlib.sha256(code).hexdigest() != meta["sha256"]:
            return None  # damaged or half-written: LLVM's loader would not say so, it would crash
        ll, machine = _linker()
        missing = [s for s in meta["needs"] if not s.startswith(("numba_", "NRT_")) and not _in_process(ll, s)]
        if missing:
            return None
        engine = ll.create_mcjit_compiler(ll.parse_assembly(""), machine)
        engine.add_object_file(ll.ObjectFileRef.from_data(code))
        engine.finalize_object()
        address = engine.get_function_address(meta["symbol"])
        if not address:
            return None
        _ENGINES.append(engine)
        return _caller(address, meta["args"], meta["returns"])
    except Exception:  # a damaged or foreign object: numba's way instead
        return None


def _in_process(ll: Any, symbol: str) -> bool:
    """Whether the process has `symbol` (libm's functions, Python's C API) for the object's code;
    libm is made known to the linker when the symbol is found there."""
    if ll.address_of_symbol(symbol) or hasattr(_process(), symbol):
        return True
    library = _libm()  # looked for only when the process itself lacks a symbol: it runs `ldconfig -p`
    if library is None or not hasattr(ctypes.CDLL(library), symbol):
        return False
    ll.load_library_permanently(library)
    return True


@functools.cache
def _process() -> ctypes.CDLL:
    """The symbols the process has loaded (Python's C API; libm, which Python links)."""
    return ctypes.CDLL(None)


@functools.cache
def _libm() -> str | None:
    """libm's name for the loader, looked up once (`ctypes.util.find_library` starts a process)."""
    import ctypes.util

    name = ctypes.util.find_library("m")
    if name is None:
        return None
    try:
        ctypes.CDLL(name)
    except OSError:
        return None
    return name


def _caller(address: int, args: Sequence[Sequence[Any]], returns: str) -> Callable[..., Any]:
    """A Python function calling the C entry at `address`: each array argument checked (dtype,
    dimensions, C order where the kernel wants it) and passed as pointer, shape and strides."""
    types: list[Any] = []
    for arg in args:
        if arg[0] == "array":
            types += [ctypes.c_void_p] + [ctypes.c_int64] * (2 * int(arg[2]))
        else:
            types.append(_CTYPES[arg[1]])
    restype = ctypes.c_int64 if returns == "int64" else None
    function = ctypes.CFUNCTYPE(restype, *types)(address)
    plan = [(a[0] == "array", _DTYPES.get(a[1]), int(a[2]) if a[0] == "array" else 0,
             a[3] == "C" if a[0] == "array" else False) for a in args]

    def flatten(values: Sequence[Any]) -> list[Any]:
        if len(values) != len(plan):
            raise TypeError(f"the kernel takes {len(plan)} arguments, not {len(values)}")
        flat: list[Any] = []
        for value, (is_array, dtype, ndim, contiguous) in zip(values, plan, strict=True):
            if not is_array:
                flat.append(int(value) if dtype is None or dtype is np.int64 else float(value))
                continue
            if (not isinstance(value, np.ndarray) or value.dtype != dtype or value.ndim != ndim
                    or (contiguous and not value.flags.c_contiguous) or not value.flags.writeable):
                raise TypeError(f"the kernel wants a writeable {ndim}-d {np.dtype(dtype).name} array"
                                + (" in C order" if contiguous else ""))
            flat.append(value.ctypes.data)
            flat += value.shape
            flat += value.strides
        return flat

    def call(*values: Any) -> Any:
        return function(*flatten(values))

    def bind(*values: Any) -> Callable[[], Any]:
        """The call with these arguments, checked and taken apart once, to be made again and again
        (a track's engine steps slice after slice on the same arrays, which the caller keeps
        alive and does not reshape meanwhile; `ndarray.ctypes` alone costs microseconds)."""
        flat = flatten(values)

        def again() -> Any:
            return function(*flat)

        again.arrays = values  # type: ignore[attr-defined]  # alive as long as the bound call
        return again

    call.bind = bind  # type: ignore[attr-defined]
    return call


# -- building, with numba -----------------------------------------------------------------------

def build(name: str, dispatcher: Any, signature: str) -> bool:
    """Keep the numba-compiled `dispatcher` (compiled for `signature`, a numba signature string)
    as `name`'s machine code for later processes. False when it cannot be kept here (no cache
    folder, no llvmlite, numba's internals not as expected): nothing breaks, later processes
    load numba as before."""
    files = _files(name)
    if files is None or _off():
        return False
    if files[0].is_file() and files[1].is_file():
        return True
    try:
        obj, meta = _compile_entry(dispatcher, signature)
    except Exception:  # numba's private code-library API moved: keep nothing
        return False
    from bandstand.files import write_bytes

    try:
        files[0].parent.mkdir(parents=True, exist_ok=True)
        write_bytes(files[0], obj)  # the object first: a description without it is never read
        write_bytes(files[1], json.dumps(meta).encode())
    except OSError:
        return False
    return True


def _compile_entry(dispatcher: Any, signature: str) -> tuple[bytes, dict[str, Any]]:
    numba: Any = importlib.import_module("numba")  # numba's own annotations are partial: read as Any
    sigutils: Any = importlib.import_module("numba.core.sigutils")
    nt: Any = importlib.import_module("numba.core.types")

    params, returns = sigutils.normalize_signature(signature)
    names, calls, c_types, described = [], [], [], []
    space: dict[str, Any] = {"kernel": dispatcher}
    for i, t in enumerate(params):
        if isinstance(t, nt.Array):
            dims = range(t.ndim)
            names += [f"p{i}", *(f"n{i}_{d}" for d in dims), *(f"s{i}_{d}" for d in dims)]
            c_types += [nt.CPointer(t.dtype), *([nt.int64] * (2 * t.ndim))]
            space[f"view{i}"] = _viewer(t)
            shape = ", ".join(f"n{i}_{d}" for d in dims) + ","
            strides = ", ".join(f"s{i}_{d}" for d in dims) + ","
            calls.append(f"view{i}(p{i}, ({shape}), ({strides}))")
            described.append(["array", str(t.dtype), t.ndim, t.layout])
        elif t == nt.boolean:
            names.append(f"k{i}")
            c_types.append(nt.int64)
            calls.append(f"k{i} != 0")
            described.append(["scalar", "bool"])
        else:
            names.append(f"k{i}")
            c_types.append(t)
            calls.append(f"k{i}")
            described.append(["scalar", str(t)])
    body = "return kernel(" + ", ".join(calls) + ")"
    exec(f"def entry({', '.join(names)}):\n    {body}\n", space)  # the source is built above, from a signature
    c_returns = nt.int64 if returns == nt.int64 else nt.void
    entry = numba.cfunc(c_returns(*c_types), nopython=True, nogil=True)(space["entry"])
    library = entry._library
    module = library._final_module
    needs = sorted({f.name for f in module.functions if f.is_declaration and not f.name.startswith("llvm.")}
                   | {g.name for g in module.global_variables if g.is_declaration})
    obj = bytes(library._codegen._tm.emit_object(module))
    return obj, {"sha256": hashlib.sha256(obj).hexdigest(), "symbol": entry.native_name, "args": described, "returns": str(c_returns), "needs": needs}


def _viewer(array_type: Any) -> Any:
    """A numba intrinsic making an array of `array_type` from a data pointer, a shape and
    strides (bytes), owning nothing: what the C entry hands the kernel."""
    from numba.extending import intrinsic

    nt: Any = importlib.import_module("numba.core.types")
    arrays: Any = importlib.import_module("numba.np.arrayobj")
    make_array, populate_array = arrays.make_array, arrays.populate_array

    @intrinsic
    def view(typingctx: Any, pointer: Any, shape: Any, strides: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            data, shape_value, strides_value = args
            array = make_array(array_type)(context, builder)
            itemsize = context.get_constant(nt.intp, context.get_abi_sizeof(context.get_data_type(array_type.dtype)))
            populate_array(array, data=data, shape=shape_value, strides=strides_value, itemsize=itemsize,
                           meminfo=None)
            return array._getvalue()

        return array_type(pointer, shape, strides), codegen

    return view
