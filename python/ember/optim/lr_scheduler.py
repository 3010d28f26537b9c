"""torch.optim.lr_scheduler: schedules that rewrite group['lr'] of an optimizer's param_groups
(the cyclic ones also 'momentum', or betas[0] on Adam-like optimizers) at every step(), with
PyTorch 1.13's values bit for bit (same float operations in the same order). Unlike 1.13, every
state_dict() pickles: CyclicLR keeps no weak method of itself and OneCycleLR.anneal_func is a
module-level function."""
import bisect
import collections
import functools
import math
import types
import warnings
import weakref

try:
    from .optimizer import Optimizer
except ImportError:  # loaded outside ember.optim: any object with param_groups will do
    Optimizer = None

__all__ = ['LambdaLR', 'MultiplicativeLR', 'StepLR', 'MultiStepLR', 'ConstantLR',
           'LinearLR', 'ExponentialLR', 'PolynomialLR', 'CosineAnnealingLR',
           'ChainedScheduler', 'SequentialLR', 'ReduceLROnPlateau', 'CyclicLR',
           'CosineAnnealingWarmRestarts', 'OneCycleLR']

# The user-facing texts are PyTorch's own, word for word, since programs and tests match them.
EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")
_DOCS_HINT = ("See more details at "
              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
_STEP_REPLACED = (
    "Seems like `optimizer.step()` has been overridden after learning rate "
    "scheduler initialization. Please, make sure to call `optimizer.step()` "
    "before `lr_scheduler.step()`. " + _DOCS_HINT)
_WRONG_ORDER = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
    "value of the learning rate schedule. " + _DOCS_HINT)
_USE_GET_LAST_LR = ("To get the last learning rate computed by the scheduler, "
                    "please use `get_last_lr()`.")


def _check_optimizer(optimizer):
    if not (isinstance(optimizer, Optimizer) if Optimizer is not None
            else hasattr(optimizer, 'param_groups')):
        raise TypeError(f'{type(optimizer).__name__} is not an Optimizer')


def _per_group(optimizer, value, name, mismatch='expected {n} values for {name}, got {got}'):
    """`value` per param group: a list/tuple of one per group as given, else repeated."""
    count = len(optimizer.param_groups)
    if not isinstance(value, (list, tuple)):
        return [value] * count
    if len(value) != count:
        raise ValueError(mismatch.format(n=count, name=name, got=len(value)))
    return value


def _require_positive_int(name, value):
    if value <= 0 or not isinstance(value, int):
        raise ValueError(f'Expected positive integer {name}, but got {value}')


def _epoch_text(epoch):
    return ('%.2f' if isinstance(epoch, float) else '%.5d') % epoch


def _count_steps(optimizer):
    """optimizer.step wrapped to add one to optimizer._step_count per call (so a scheduler
    sees whether the optimizer stepped first), holding the optimizer only weakly."""
    step = optimizer.step
    if getattr(step, '_with_counter', False):
        return step
    func, owner = getattr(step, '__func__', None), getattr(step, '__self__', None)
    rebind = func is not None and owner is not None
    if not rebind:  # e.g. a plain function stored on the instance: call it as it is
        func, owner = step, optimizer
    try:
        owner_ref = weakref.ref(owner)
    except TypeError:  # cannot be referenced weakly: hold it
        def owner_ref():
            return owner

    @functools.wraps(func)
    def counted(*args, **kwargs):
        target = owner_ref()
        target._step_count += 1
        return (func.__get__(target, type(target)) if rebind else func)(*args, **kwargs)
    counted._with_counter = True
    return counted


def _state_of(scheduler, nested=None, pack=None):
    """scheduler.__dict__ less the optimizer; list attribute `nested` saved through pack()."""
    state = {key: value for key, value in scheduler.__dict__.items()
             if key != 'optimizer' and key != nested}
    if nested is not None:
        state[nested] = [pack(entry) for entry in getattr(scheduler, nested)]
    return state


def _load_into(scheduler, state, nested, unpack):
    """Inverse of _state_of, through unpack(live_entry, saved); `state` is not modified."""
    saved_entries = state[nested]
    scheduler.__dict__.update((key, value) for key, value in state.items() if key != nested)
    entries = getattr(scheduler, nested)
    for index, saved in enumerate(saved_entries):
        unpack(entries[index], saved)


def _momentum_uses_betas(optimizer, betas_allowed):
    """Whether cycled momentum goes to betas[0] (Adam-like, if allowed) or to 'momentum'."""
    use_betas = betas_allowed and 'betas' in optimizer.defaults
    if not use_betas and 'momentum' not in optimizer.defaults:
        raise ValueError('optimizer must support momentum with `cycle_momentum` option enabled')
    return use_betas


def _put_momentum(group, value, use_betas):
    if use_betas:
        group['betas'] = (value, *group['betas'][1:])
    else:
        group['momentum'] = value


def _on_cosine(low, high, angle):
    """The point of a half cosine from high (angle 0) down to low (angle pi)."""
    return low + (high - low) * (1 + math.cos(angle)) / 2


class _LRScheduler:
    """Base of the epoch-driven schedules: a subclass supplies get_lr() and may add
    _get_closed_form_lr(), which step(epoch) prefers."""

    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group in groups:
                if 'initial_lr' not in group:
                    group['initial_lr'] = group['lr']
        else:
            for index, group in enumerate(groups):
                if 'initial_lr' not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in "
                                   f"param_groups[{index}] when resuming an optimizer")
        self.base_lrs = [group['initial_lr'] for group in groups]
        self.last_epoch = last_epoch
        optimizer.step = _count_steps(optimizer)
        self.verbose = verbose
        self._initial_step()

    def _initial_step(self):
        """Zeroes both step counters, then steps once to set the lrs of epoch last_epoch+1."""
        self.optimizer._step_count = self._step_count = 0
        self.step()

    def state_dict(self):
        """All of the scheduler's attributes except the optimizer."""
        return _state_of(self)

    def load_state_dict(self, state_dict):
        """Takes back what state_dict() returned."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The lrs that the latest step set."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def print_lr(self, is_verbose, group, lr, epoch=None):
        """Reports the new lr of one param group when is_verbose is true."""
        if is_verbose:
            lead = 'Adjusting' if epoch is None else f'Epoch {_epoch_text(epoch)}: adjusting'
            print(f'{lead} learning rate of group {group} to {lr:.4e}.')

    def step(self, epoch=None):
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, '_with_counter'):
                warnings.warn(_STEP_REPLACED, UserWarning)
            elif self.optimizer._step_count < 1:
                warnings.warn(_WRONG_ORDER, UserWarning)
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            compute = self.get_lr
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
            self.last_epoch = epoch
            compute = getattr(self, '_get_closed_form_lr', self.get_lr)
        self._apply(compute, epoch)

    def _apply(self, compute, epoch):
        """Writes the lrs of compute() (a get_lr, run without its warning) into the groups."""
        self._get_lr_called_within_step = True
        try:
            values = compute()
        finally:
            self._get_lr_called_within_step = False
        groups = self.optimizer.param_groups
        for index, (group, lr) in enumerate(zip(groups, values)):
            group['lr'] = lr
            self.print_lr(self.verbose, index, lr, epoch)
        self._last_lr = self._lrs()

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn(_USE_GET_LAST_LR, UserWarning)

    def _lrs(self):
        return [group['lr'] for group in self.optimizer.param_groups]

    def _lrs_times(self, factor):
        return [group['lr'] * factor for group in self.optimizer.param_groups]

    def _base_times(self, factor):
        return [base_lr * factor for base_lr in self.base_lrs]


LRScheduler = _LRScheduler


class _LambdaSchedule(_LRScheduler):
    """Shared by LambdaLR and MultiplicativeLR: a function of the epoch per group; their
    state_dict keeps the attributes of callable objects, not plain functions."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        self.lr_lambdas = list(_per_group(optimizer, lr_lambda, 'lr_lambdas',
                                          'Expected {n} {name}, but got {got}'))
        super().__init__(optimizer, last_epoch, verbose)

    def state_dict(self):
        return _state_of(self, 'lr_lambdas', lambda fn: (
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()))

    def load_state_dict(self, state_dict):
        def restore(fn, saved):
            if saved is not None:
                fn.__dict__.update(saved)
        _load_into(self, state_dict, 'lr_lambdas', restore)


class LambdaLR(_LambdaSchedule):
    """lr = initial lr * lr_lambda(epoch), one lambda for all groups or one per group."""

    def get_lr(self):
        self._warn_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaSchedule):
    """Each step after the first multiplies the current lr by lr_lambda(epoch)."""

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch > 0:
            return [group['lr'] * fn(self.last_epoch)
                    for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]
        return self._lrs()


class StepLR(_LRScheduler):
    """Multiplies the lr by gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch != 0 and self.last_epoch % self.step_size == 0:
            return self._lrs_times(self.gamma)
        return self._lrs()

    def _get_closed_form_lr(self):
        return self._base_times(self.gamma ** (self.last_epoch // self.step_size))


class MultiStepLR(_LRScheduler):
    """Multiplies the lr by gamma at each milestone epoch (gamma**k for one listed k times)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones, self.gamma = collections.Counter(milestones), gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch in self.milestones:
            return self._lrs_times(self.gamma ** self.milestones[self.last_epoch])
        return self._lrs()

    def _get_closed_form_lr(self):
        passed = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return self._base_times(self.gamma ** passed)


class ConstantLR(_LRScheduler):
    """Runs at lr * factor for the first total_iters epochs, then at the full lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1, verbose=False):
        if factor < 0 or factor > 1.0:
            raise ValueError('Constant multiplicative factor expected to be between 0 and 1.')
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return self._lrs_times(self.factor)
        if self.last_epoch == self.total_iters:
            return self._lrs_times(1.0 / self.factor)
        return self._lrs()

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        return self._base_times(self.factor + done * (1 - self.factor))


class LinearLR(_LRScheduler):
    """Scales the lr by a factor moving linearly from start_factor to end_factor over
    total_iters epochs, then kept."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1, verbose=False):
        if start_factor < 0 or start_factor > 1.0:
            raise ValueError('Starting multiplicative factor expected to be between 0 and 1.')
        if end_factor < 0 or end_factor > 1.0:
            raise ValueError('Ending multiplicative factor expected to be between 0 and 1.')
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0:
            return self._lrs_times(self.start_factor)
        if self.last_epoch > self.total_iters:
            return self._lrs()
        span = self.end_factor - self.start_factor
        previous = self.total_iters * self.start_factor + (self.last_epoch - 1) * span
        return self._lrs_times(1. + span / previous)

    def _get_closed_form_lr(self):
        reached = min(self.total_iters, self.last_epoch)
        return self._base_times(self.start_factor + (self.end_factor - self.start_factor)
                                * reached / self.total_iters)


class ExponentialLR(_LRScheduler):
    """Multiplies the lr by gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        return self._lrs() if self.last_epoch == 0 else self._lrs_times(self.gamma)

    def _get_closed_form_lr(self):
        return self._base_times(self.gamma ** self.last_epoch)


class PolynomialLR(_LRScheduler):
    """lr = initial lr * (1 - epoch / total_iters) ** power, constant after total_iters."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1, verbose=False):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch > self.total_iters or self.last_epoch == 0:
            return self._lrs()
        now = 1.0 - self.last_epoch / self.total_iters
        before = 1.0 - (self.last_epoch - 1) / self.total_iters
        return self._lrs_times((now / before) ** self.power)

    def _get_closed_form_lr(self):
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return self._base_times(left ** self.power)


class CosineAnnealingLR(_LRScheduler):
    """Moves the lr along a cosine from the initial lr down to eta_min in T_max epochs and back
    up in the next T_max, and so on (computed as a ratio of the current lr, as in 1.13)."""

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        epoch, period, low = self.last_epoch, self.T_max, self.eta_min
        if epoch == 0:
            return self._lrs()
        if self._step_count == 1 and epoch > 0:  # resumed: start from the closed form
            return [_on_cosine(low, base_lr, epoch * math.pi / period)
                    for base_lr in self.base_lrs]
        groups = self.optimizer.param_groups
        if (epoch - 1 - period) % (2 * period) == 0:  # leaving the bottom of the cosine
            rise = 1 - math.cos(math.pi / period)
            return [group['lr'] + (base_lr - low) * rise / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        ratio = ((1 + math.cos(math.pi * epoch / period))
                 / (1 + math.cos(math.pi * (epoch - 1) / period)))
        return [ratio * (group['lr'] - low) + low for group in groups]

    def _get_closed_form_lr(self):
        angle = math.pi * self.last_epoch / self.T_max
        return [_on_cosine(self.eta_min, base_lr, angle) for base_lr in self.base_lrs]


class _Composite(_LRScheduler):
    """A scheduler made of other schedulers; its state_dict nests theirs."""

    def state_dict(self):
        return _state_of(self, '_schedulers', lambda scheduler: scheduler.state_dict())

    def load_state_dict(self, state_dict):
        _load_into(self, state_dict, '_schedulers',
                   lambda scheduler, saved: scheduler.load_state_dict(saved))


class ChainedScheduler(_Composite):
    """Steps every scheduler of the list at each step(), so their changes compound."""

    def __init__(self, schedulers):
        optimizer = schedulers[0].optimizer
        for index in range(1, len(schedulers)):
            if schedulers[index].optimizer != optimizer:
                raise ValueError(
                    'ChainedScheduler expects all schedulers to belong to the same optimizer, '
                    f'but got schedulers at index 0 and {index} to be different')
        self._schedulers, self.optimizer = list(schedulers), optimizer
        self._last_lr = self._lrs()

    def step(self):
        for member in self._schedulers:
            member.step()
        self._last_lr = self._lrs()


class SequentialLR(_Composite):
    """Hands the optimizer from one scheduler to the next at each milestone epoch; a scheduler
    taking over starts from its epoch 0. `verbose` is accepted and ignored."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        for index, scheduler in enumerate(schedulers):
            if scheduler.optimizer != optimizer:
                raise ValueError(
                    'Sequential Schedulers expects all schedulers to belong to the same '
                    f'optimizer, but got schedulers at index {index} to be different than the '
                    'optimizer passed in.')
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                'Sequential Schedulers expects number of schedulers provided to be one more '
                'than the number of milestone points, but got number of schedulers '
                f'{len(schedulers)} and the number of milestones to be equal to '
                f'{len(milestones)}')
        self._schedulers, self._milestones = schedulers, milestones
        self.optimizer = optimizer
        self.last_epoch = last_epoch + 1
        # Each scheduler stepped once when built: undo that, then let only the first one start.
        for group in optimizer.param_groups:
            group['lr'] = group['initial_lr']
        for member in schedulers:
            member.last_epoch -= 1
        first = schedulers[0]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self):
        self.last_epoch += 1
        index = bisect.bisect_right(self._milestones, self.last_epoch)
        current = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            current.step(0)
        else:
            current.step()
        self._last_lr = current.get_last_lr()


class ReduceLROnPlateau:
    """Multiplies the lr by `factor` once the metric passed to step() has not improved for
    more than `patience` steps, then waits `cooldown` steps before counting again."""

    def __init__(self, optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-8, verbose=False):
        if factor >= 1.0:
            raise ValueError('Factor should be < 1.0.')
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.min_lrs = list(_per_group(optimizer, min_lr, 'min_lrs',
                                       'expected {n} {name}, got {got}'))
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.verbose = verbose
        self.last_epoch = 0
        self._set_comparison(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        """Forgets the best value seen, the bad-epoch count and any cooldown."""
        self.best = self.mode_worse
        self.cooldown_counter = self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        current = float(metrics)  # a number or a one-element tensor
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
        self.last_epoch = epoch
        improved = self.is_better(current, self.best)
        if improved:
            self.best = current
        self.num_bad_epochs = 0 if improved else self.num_bad_epochs + 1
        if self.in_cooldown:  # bad epochs do not count while cooling down
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:  # patience ran out
            self._reduce_lr(epoch)
            self.num_bad_epochs, self.cooldown_counter = 0, self.cooldown
        self._last_lr = [group['lr'] for group in self.optimizer.param_groups]

    def _reduce_lr(self, epoch):
        for index, group in enumerate(self.optimizer.param_groups):
            old = float(group['lr'])
            new = max(old * self.factor, self.min_lrs[index])
            if old - new > self.eps:  # smaller changes are not worth making
                group['lr'] = new
                if self.verbose:
                    print(f'Epoch {_epoch_text(epoch)}: reducing learning rate of group '
                          f'{index} to {new:.4e}.')

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def is_better(self, a, best):
        """Whether metric value `a` beats `best` by more than the threshold."""
        relative = self.threshold_mode == 'rel'
        if self.mode == 'min':
            return a < (best * (1. - self.threshold) if relative else best - self.threshold)
        return a > (best * (self.threshold + 1.) if relative else best + self.threshold)

    def _set_comparison(self, mode, threshold, threshold_mode):
        if mode not in ('min', 'max'):
            raise ValueError(f'mode {mode} is unknown!')
        if threshold_mode not in ('rel', 'abs'):
            raise ValueError(f'threshold mode {threshold_mode} is unknown!')
        self.mode_worse = math.inf if mode == 'min' else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def state_dict(self):
        return _state_of(self)

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_comparison(self.mode, self.threshold, self.threshold_mode)


class CyclicLR(_LRScheduler):
    """Cyclical lr: base_lr up to max_lr in step_size_up batches and back in step_size_down,
    the swing scaled by the mode's (or a custom) scale function; momentum moves inversely."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode='triangular', gamma=1., scale_fn=None, scale_mode='cycle',
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1,
                 verbose=False):
        _check_optimizer(optimizer)
        groups = optimizer.param_groups
        base_lrs = _per_group(optimizer, base_lr, 'base_lr')
        if last_epoch == -1:
            for lr, group in zip(base_lrs, groups):
                group['lr'] = lr
        self.max_lrs = _per_group(optimizer, max_lr, 'max_lr')
        up = float(step_size_up)
        down = up if step_size_down is None else float(step_size_down)
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if scale_fn is None and mode not in ('triangular', 'triangular2', 'exp_range'):
            raise ValueError('mode is invalid and scale_fn is None')
        self.mode, self.gamma, self._scale_fn_custom = mode, gamma, scale_fn
        if scale_fn is None:
            self.scale_mode = 'iterations' if mode == 'exp_range' else 'cycle'
        else:
            self.scale_mode = scale_mode
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_uses_betas(optimizer, betas_allowed=False)
            base_momentums = _per_group(optimizer, base_momentum, 'base_momentum')
            if last_epoch == -1:
                for momentum, group in zip(base_momentums, groups):
                    _put_momentum(group, momentum, False)
            self.base_momentums = [group['momentum'] for group in groups]
            self.max_momentums = _per_group(optimizer, max_momentum, 'max_momentum')
        super().__init__(optimizer, last_epoch, verbose)
        self.base_lrs = base_lrs

    def scale_fn(self, x):
        """Amplitude factor for cycle number (or iteration) x."""
        custom = self._scale_fn_custom
        if custom is not None:
            return custom(x)
        if self.mode == 'triangular':
            return 1.
        if self.mode == 'triangular2':
            return 1 / (2. ** (x - 1))
        return self.gamma ** x  # exp_range

    def load_state_dict(self, state_dict):
        """As the base class, ignoring a '_scale_fn_ref' entry (1.13's weak method)."""
        self.__dict__.update((k, v) for k, v in state_dict.items() if k != '_scale_fn_ref')

    def get_lr(self):
        """lrs for batch index last_epoch; also sets the groups' momentum when it cycles."""
        self._warn_outside_step()
        progress = self.last_epoch / self.total_size
        cycle = math.floor(1 + progress)
        x = 1. + progress - cycle  # position in the cycle, 0..1
        rising = x <= self.step_ratio
        height = x / self.step_ratio if rising else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == 'cycle' else self.last_epoch)
        lrs = [low + (high - low) * height * scale
               for low, high in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums,
                                        self.max_momentums):
                _put_momentum(group, high - (high - low) * height * scale, False)
        return lrs


class CosineAnnealingWarmRestarts(_LRScheduler):
    """SGDR: a cosine from the initial lr down to eta_min over T_i epochs, then a restart with
    T_i multiplied by T_mult. step() also takes fractional epochs (epoch + batch / batches)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        _require_positive_int('T_0', T_0)
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f'Expected integer T_mult >= 1, but got {T_mult}')
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min = T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        angle = math.pi * self.T_cur / self.T_i
        return [_on_cosine(self.eta_min, base_lr, angle) for base_lr in self.base_lrs]

    def step(self, epoch=None):
        """One epoch further, or straight to `epoch` (fractions allowed; no warning here)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:  # restart
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f'Expected non-negative epoch, but got {epoch}')
        elif epoch < self.T_0:
            self.T_i = self.T_0
            self.T_cur = epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # n whole periods (T_0, T_0 * T_mult, ...) lie before `epoch`
            t0, mult = self.T_0, self.T_mult
            n = int(math.log(epoch / t0 * (mult - 1) + 1, mult))
            self.T_cur = epoch - t0 * (mult ** n - 1) / (mult - 1)
            self.T_i = t0 * mult ** n
        self.last_epoch = math.floor(epoch)
        self._apply(self.get_lr, epoch)


def _annealing_cos(start, end, pct):
    """From start (pct 0) to end (pct 1) along half a cosine."""
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _annealing_linear(start, end, pct):
    """From start (pct 0) to end (pct 1) in a straight line."""
    return start + pct * (end - start)


def _phase(end_step, lr_from, lr_to, momentum_from, momentum_to):
    """One leg of OneCycleLR: up to step end_step, between the group keys named."""
    return {'end_step': end_step, 'start_lr': lr_from, 'end_lr': lr_to,
            'start_momentum': momentum_from, 'end_momentum': momentum_to}


class OneCycleLR(_LRScheduler):
    """1cycle: per batch, the lr climbs from max_lr/div_factor to max_lr over pct_start of the
    steps, then anneals to initial_lr/final_div_factor; momentum moves inversely."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy='cos', cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25., final_div_factor=1e4, three_phase=False,
                 last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        if total_steps is not None:
            _require_positive_int('total_steps', total_steps)
        elif epochs is None and steps_per_epoch is None:
            raise ValueError('You must define either total_steps OR (epochs AND steps_per_epoch)')
        else:
            _require_positive_int('epochs', epochs)
            _require_positive_int('steps_per_epoch', steps_per_epoch)
            total_steps = epochs * steps_per_epoch
        self.total_steps = total_steps
        phases = [_phase(float(pct_start * total_steps) - 1,
                         'initial_lr', 'max_lr', 'max_momentum', 'base_momentum')]
        if three_phase:  # back down to initial_lr before the final anneal
            phases += [_phase(float(2 * pct_start * total_steps) - 2,
                              'max_lr', 'initial_lr', 'base_momentum', 'max_momentum'),
                       _phase(total_steps - 1, 'initial_lr', 'min_lr', 'max_momentum',
                              'max_momentum')]
        else:
            phases.append(_phase(total_steps - 1, 'max_lr', 'min_lr', 'base_momentum',
                                 'max_momentum'))
        self._schedule_phases = phases
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f'Expected float between 0 and 1 pct_start, but got {pct_start}')
        if anneal_strategy == 'cos':
            self.anneal_func = _annealing_cos
        elif anneal_strategy == 'linear':
            self.anneal_func = _annealing_linear
        else:
            raise ValueError("anneal_strategy must by one of 'cos' or 'linear', "
                             f"instead got {anneal_strategy}")
        groups = optimizer.param_groups
        max_lrs = _per_group(optimizer, max_lr, 'max_lr')
        if last_epoch == -1:
            for group, peak in zip(groups, max_lrs):
                start = peak / div_factor
                group.update(initial_lr=start, max_lr=peak, min_lr=start / final_div_factor)
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_uses_betas(optimizer, betas_allowed=True)
            highs = _per_group(optimizer, max_momentum, 'max_momentum')
            lows = _per_group(optimizer, base_momentum, 'base_momentum')
            if last_epoch == -1:
                for group, high, low in zip(groups, highs, lows):
                    _put_momentum(group, high, self.use_beta1)
                    group.update(max_momentum=high, base_momentum=low)
        super().__init__(optimizer, last_epoch, verbose)

    def _locate(self, step):
        """The phase holding `step`, and how far into it (0..1) the step is."""
        start = 0
        final = len(self._schedule_phases) - 1
        for index, phase in enumerate(self._schedule_phases):
            end = phase['end_step']
            if step <= end or index == final:
                return phase, (step - start) / (end - start)
            start = end

    def get_lr(self):
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f'Tried to step {step + 1} times. The specified number of total '
                             f'steps is {self.total_steps}')
        phase, pct = self._locate(step)
        lrs = []
        for group in self.optimizer.param_groups:
            lrs.append(self.anneal_func(group[phase['start_lr']], group[phase['end_lr']], pct))
            if self.cycle_momentum:
                momentum = self.anneal_func(group[phase['start_momentum']],
                                            group[phase['end_momentum']], pct)
                _put_momentum(group, momentum, self.use_beta1)
        return lrs
