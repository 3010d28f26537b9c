"""Writes lbfgs.json: torch.optim.LBFGS 1.13's runs on one problem, for
tests/optim/optimizer_test.cpp. w (3, 4) and b (4,) in float64 minimise
sum((tanh(x @ w + b) - target)^2) + 0.1 * sum(w^4) over three step(closure) calls, each up to
max_iter iterations, with and without the strong-Wolfe line search. Recorded per case: the
options, the loss step() returned each time, the final parameters, the state's func_evals, n_iter
and history length, and the state's keys in order. Run with Debian's /usr/bin/python3."""
import os

import torch

from golden_json import enc_tensor, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = [
    ("plain", dict()),
    ("short_history", dict(lr=0.5, max_iter=7, history_size=3)),
    ("strong_wolfe", dict(line_search_fn="strong_wolfe")),
    ("strong_wolfe_short", dict(line_search_fn="strong_wolfe", max_iter=5, history_size=2,
                                tolerance_change=1e-5)),
    ("max_eval_tolerance_grad", dict(lr=2, max_iter=4, max_eval=3, tolerance_grad=1e-3)),
]


def main():
    torch.manual_seed(0)
    init = {"w": torch.randn(3, 4, dtype=torch.float64), "b": torch.randn(4, dtype=torch.float64),
            "x": torch.randn(5, 3, dtype=torch.float64),
            "target": torch.randn(5, 4, dtype=torch.float64)}
    cases = []
    for name, kw in CONFIGS:
        w = init["w"].clone().requires_grad_()
        b = init["b"].clone().requires_grad_()
        opt = torch.optim.LBFGS([w, b], **kw)

        def closure():
            opt.zero_grad()
            loss = ((torch.tanh(init["x"] @ w + b) - init["target"]) ** 2).sum() + 0.1 * (w ** 4).sum()
            loss.backward()
            return loss

        losses = [float(opt.step(closure)) for _ in range(3)]
        state = opt.state[w]
        cases.append({"name": name, "options": kw, "losses": losses, "w": enc_tensor(w.detach()),
                      "b": enc_tensor(b.detach()), "func_evals": state["func_evals"],
                      "n_iter": state["n_iter"], "history": len(state["old_dirs"]),
                      "state_keys": list(state.keys())})
    head = '"problem": {%s},\n' % ", ".join(
        '"%s": %s' % (k, __import__("json").dumps(enc_tensor(v))) for k, v in init.items())
    write_cases(os.path.join(HERE, "lbfgs.json"), cases, head=head)


if __name__ == "__main__":
    main()
