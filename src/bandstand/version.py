"""The package's version, in a module of its own at the bottom of the stack: every layer may
name it (the recipe, the manifest, the track cache, the server) without importing the package
root, which sits above everything (`bandstand.compose` is one of its names)."""

__version__ = "0.1.0"

__all__ = ["__version__"]
