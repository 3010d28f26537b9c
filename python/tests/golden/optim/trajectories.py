"""The optimizer runs compared between PyTorch (generate.py) and ember (test_optim.py): the same
code on both, float64 parameters, so trajectories must agree to 1e-12 (LBFGS: 1e-9)."""

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, betas=(0.8, 0.99), amsgrad=True)),
    ("Adamax", dict()),
    ("NAdam", dict()),
    ("RAdam", dict(weight_decay=0.1)),
    ("RMSprop", dict()),
    ("RMSprop", dict(momentum=0.5, centered=True, weight_decay=0.01)),
    ("Adagrad", dict(initial_accumulator_value=0.1, lr_decay=0.01)),
]


def run(torch, name, kw):
    torch.manual_seed(0)
    w = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    x = torch.randn(5, 3, dtype=torch.float64)
    opt = getattr(torch.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05}], **kw)
    for step in range(6):
        opt.zero_grad()
        ((x @ w + b) ** 2).sum().backward()
        opt.step()
        if step == 2:
            opt.param_groups[0]["lr"] *= 0.5
        if step == 3:  # a state_dict round trip into a fresh optimizer, mid-run
            sd = opt.state_dict()
            opt = getattr(torch.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05}], **kw)
            opt.load_state_dict(sd)
    sd = opt.state_dict()
    group = {k: (list(v) if isinstance(v, tuple) else v) for k, v in sd["param_groups"][0].items()}
    return {"w": w.tolist(), "b": b.tolist(), "group0": group,
            "state_keys": sorted(sd["state"][0].keys()), "state_ids": sorted(sd["state"].keys())}


# LBFGS takes a closure and one parameter group: a smooth, non-quadratic loss, three step() calls
# (each up to max_iter iterations) with a state_dict round trip in between.
LBFGS_CONFIGS = [
    dict(),
    dict(lr=0.5, max_iter=7, history_size=3),
    dict(line_search_fn="strong_wolfe"),
    dict(line_search_fn="strong_wolfe", max_iter=5, history_size=2, tolerance_change=1e-5),
    dict(lr=2, max_iter=4, max_eval=3, tolerance_grad=1e-3),
]


def run_lbfgs(torch, kw):
    torch.manual_seed(0)
    w = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    x = torch.randn(5, 3, dtype=torch.float64)
    target = torch.randn(5, 4, dtype=torch.float64)
    opt = torch.optim.LBFGS([w, b], **kw)

    def closure():
        opt.zero_grad()
        loss = (((x @ w + b).tanh() - target) ** 2).sum() + 0.1 * (w ** 4).sum()
        loss.backward()
        return loss

    losses = []
    for step in range(3):
        losses.append(float(opt.step(closure)))
        if step == 1:
            sd = opt.state_dict()
            opt = torch.optim.LBFGS([w, b], **kw)
            opt.load_state_dict(sd)
    sd = opt.state_dict()
    state = sd["state"][0]
    return {"w": w.tolist(), "b": b.tolist(), "losses": losses, "group0": sd["param_groups"][0],
            "state_keys": list(state.keys()), "func_evals": state["func_evals"],
            "n_iter": state["n_iter"], "history": len(state["old_dirs"])}


def run_all(torch):
    out = {"%02d_%s" % (i, name): run(torch, name, kw) for i, (name, kw) in enumerate(CONFIGS)}
    out.update({"lbfgs_%02d" % i: run_lbfgs(torch, kw) for i, kw in enumerate(LBFGS_CONFIGS)})
    return out
