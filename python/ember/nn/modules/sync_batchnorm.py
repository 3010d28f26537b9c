"""SyncBatchNorm (PyTorch 1.13): BatchNorm over inputs of 2 or more dims whose training
statistics are those of the whole process group's batch — the C++ nn::functional::sync_batch_norm
all-reduces the per-channel sums in forward and the gradient sums in backward, so 2 ranks with
batch B each normalise, and train, exactly as one process with batch 2B.

Where it differs from PyTorch 1.13: PyTorch raises ValueError("SyncBatchNorm expected input tensor
to be on GPU") for any CPU input; ember's collectives run on CPU tensors (Gloo), so CPU input is
accepted, in eval and in training. Everything else is PyTorch's: in training with more than one
rank in the group it synchronises; with one rank, or on a rank outside process_group, it is
BatchNorm over the local batch; outside a process group, training raises the RuntimeError of
get_world_size while eval (running statistics) works.
Every rank must run each SyncBatchNorm's forward and backward in the same order."""
from ... import _C
from ... import distributed as dist
from .batchnorm import _BatchNorm

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """num_features channels of (N, C, *) input; process_group None means the default group."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError("expected at least 2D input (got {}D input)".format(input.dim()))
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def _normalize(self, input, running_mean, running_var, bn_training, exponential_average_factor):
        # Only batch statistics in training are shared; eval with tracked statistics, and
        # untracked statistics in eval, stay local, as in PyTorch.
        if bn_training and self.training and self._world_size() > 1:
            return _C._nn.sync_batch_norm(input, running_mean, running_var, self.weight, self.bias,
                                          exponential_average_factor, self.eps, self.process_group)
        return super()._normalize(input, running_mean, running_var, bn_training,
                                  exponential_average_factor)

    def _world_size(self):
        # PyTorch's get_world_size is -1 on a rank outside the group (ember's gives the group's
        # size): such a rank normalises with its local batch.
        group = self.process_group
        if group is not None and group.rank() < 0:
            return -1
        return dist.get_world_size(group)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replaces every BatchNorm in the tree (module itself included) by a new SyncBatchNorm
        over process_group holding the same Parameter and buffer objects, and returns the
        result: other modules stay the same objects, their BatchNorm children swapped in place.
        As in PyTorch 1.13 a new SyncBatchNorm starts in training mode, whatever the mode of the
        layer it replaces."""
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                          module.affine, module.track_running_stats, process_group)
            if module.affine:
                module_output.weight = module.weight
                module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return module_output
