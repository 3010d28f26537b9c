"""The torch alias: programs whose imports say ``torch`` run on ember unchanged.

    ember-python train.py --epochs 3        # the same as: python3 -m ember.compat train.py ...

``install()`` puts an import hook first on sys.meta_path: ``import torch``, ``import torch.nn as
nn``, ``from torch.utils.data import DataLoader`` resolve to ember's modules (the very same
module objects: ``torch.autograd is ember.autograd``). There is no package named torch on disk,
so a program outside ember-python still imports the real PyTorch. A module ember lacks fails at
once with an ImportError that names it and says "not in ember"; a missing attribute of an ember
module is an AttributeError saying the same (ember/__init__.py's __getattr__) — never a wrong
result.
"""
import importlib
import importlib.abc
import importlib.machinery
import os
import runpy
import sys

_ALIAS = "torch"


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass  # already imported as ember.*


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``torch`` and ``torch.X.Y`` as ``ember`` and ``ember.X.Y``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _ALIAS and not fullname.startswith(_ALIAS + "."):
            return None
        target_name = "ember" + fullname[len(_ALIAS):]
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name is not None and (e.name == target_name or target_name.startswith(e.name + ".")):
                raise ModuleNotFoundError("No module named '%s': %s is not in ember (no module %s)"
                                          % (fullname, fullname, target_name), name=fullname) from None
            raise
        is_package = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=is_package)


def install():
    """Makes ``import torch`` mean ``import ember`` in this interpreter (idempotent)."""
    if not any(isinstance(f, TorchAliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TorchAliasFinder())
    for name in [n for n in sys.modules if n == _ALIAS or n.startswith(_ALIAS + ".")]:
        if not getattr(sys.modules[name], "__name__", "").startswith("ember"):
            raise RuntimeError("ember.compat: the real %s is already imported in this interpreter; "
                               "install the alias before anything imports torch" % name)


_USAGE = "usage: ember-python SCRIPT [ARGS...] | -m MODULE [ARGS...] | -c COMMAND [ARGS...]"


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    install()
    if argv[0] == "-m" and len(argv) > 1:
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c" and len(argv) > 1:
        sys.argv = ["-c"] + argv[2:]
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        script = argv[0]
        if not os.path.exists(script):
            print("ember-python: can't open file %r: No such file or directory" % script, file=sys.stderr)
            return 2
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
