"""The module between an FSDP instance and the module it wraps (1.13's FlattenParamsWrapper): it
holds the unit's flat parameter as ``flat_param`` beside the wrapped module ``_fpw_module``, so
that parameter names read as in PyTorch 1.13 ("_fsdp_wrapped_module.flat_param",
"_fsdp_wrapped_module._fpw_module.layers.0._fsdp_wrapped_module.flat_param")."""
from ...nn.modules.module import Module

FLAT_PARAM = "flat_param"
FPW_MODULE = "_fpw_module"


class FlattenParamsWrapper(Module):
    def __init__(self, module, flat_param):
        super().__init__()
        self._fpw_module = module
        # Registered only when the unit has parameters (else a plain None attribute, as 1.13).
        self.flat_param = flat_param

    @property
    def module(self):
        """The wrapped module (read each time: apply_activation_checkpointing may replace it)."""
        return self._modules[FPW_MODULE]

    @property
    def has_params(self):
        return FLAT_PARAM in self._parameters or self.__dict__.get(FLAT_PARAM) is not None

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == FPW_MODULE or FPW_MODULE not in self.__dict__.get("_modules", {}):
                raise
            return getattr(self._modules[FPW_MODULE], name)

    def __getitem__(self, key):
        return self._modules[FPW_MODULE].__getitem__(key)

    def forward(self, *inputs, **kwinputs):
        return self._modules[FPW_MODULE](*inputs, **kwinputs)
