"""The backward graph's nodes as Python sees them: ``type(t.grad_fn).__name__`` is the node's
name ("MulBackward0", "AccumulateGrad", ...) and every node is an instance of Node."""
from .. import _C

Node = _C._Node
