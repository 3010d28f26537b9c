"""parameters_to_vector / vector_to_parameters (PyTorch 1.13)."""
from ... import _C


def parameters_to_vector(parameters):
    """One 1-D tensor of all the parameters' values, in order (differentiable)."""
    return _C.cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of ``vec`` into the parameters' data."""
    if not isinstance(vec, _C.Tensor):
        raise TypeError("expected torch.Tensor, but got: {}".format(type(vec).__name__))
    pointer = 0
    for param in parameters:
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
