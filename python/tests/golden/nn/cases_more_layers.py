"""Golden cases of torch.nn's InstanceNorm1d/2d/3d, F.instance_norm, PReLU, F.prelu, Conv3d and
F.conv3d: outputs, gradients, running statistics in training and eval, unbatched inputs, padding
modes, state_dict keys, printing and PyTorch's errors. cases.py adds them as the group
"more_layers"; `C` is its case builder."""


def cases(C):
    out = []
    grads = "(out, [(n, p.grad) for n, p in m.named_parameters()], x.grad)"
    stats = "(out, [(k, v) for k, v in m.state_dict().items()])"

    def run(setup, expr, atol=1e-5, label=None, raises=None):
        lines = setup.strip().splitlines()
        out.append(C(expr, setup, atol=atol, rtol=1e-4, raises=raises,
                     label=label or "%s -> %s" % (lines[0], expr[:24])))

    for cls, shape in (("InstanceNorm1d", "(2, 3, 5)"), ("InstanceNorm2d", "(2, 3, 4, 5)"),
                       ("InstanceNorm3d", "(2, 3, 2, 3, 4)")):
        run("m = nn.%s(3)\nx = torch.randn%s\nout = m(x)" % (cls, shape), stats)
        run("m = nn.%s(3, affine=True)\nm.weight.data.uniform_()\nm.bias.data.uniform_()\n"
            "x = torch.randn%s.requires_grad_()\nout = m(x)\n(out * torch.randn_like(out)).sum().backward()"
            % (cls, shape), grads, atol=1e-4, label="%s affine backward" % cls)
        run("m = nn.%s(3, track_running_stats=True, momentum=0.3)\nx = torch.randn%s * 2 + 1\n"
            "m(x)\nout = m(x + 1)" % (cls, shape), stats, label="%s running stats in training" % cls)
        run("m = nn.%s(3, affine=True, track_running_stats=True)\nx = torch.randn%s\nm(x)\nm.eval()\n"
            "out = m(x)" % (cls, shape), stats, label="%s eval by running stats" % cls)
        run("m = nn.%s(3)\nx = torch.randn%s[0].requires_grad_()\nout = m(x)\nout.pow(2).sum().backward()"
            % (cls, shape), "(out, x.grad)", label="%s unbatched" % cls)
    run("m = nn.InstanceNorm2d(3, eps=1e-3, affine=True, track_running_stats=True)",
        "(repr(m), repr(nn.InstanceNorm1d(4)), repr(nn.InstanceNorm3d(2, momentum=0.5)), "
        "list(m.state_dict().keys()), [n for n, _ in m.named_buffers()])", label="InstanceNorm repr and state")
    run("m = nn.InstanceNorm2d(3, track_running_stats=True)\nx = torch.randn(2, 3, 4, 4, dtype=torch.float64)\n"
        "m = m.double()\nout = m(x)", stats, label="InstanceNorm2d float64")
    run("x = torch.randn(2, 3, 6, requires_grad=True)\nw = torch.rand(3, requires_grad=True)\n"
        "b = torch.rand(3, requires_grad=True)\nrm = torch.zeros(3)\nrv = torch.ones(3)\n"
        "out = F.instance_norm(x, rm, rv, w, b, momentum=0.2)\nout.pow(3).sum().backward()",
        "(out, rm, rv, x.grad, w.grad, b.grad)", atol=1e-4, label="F.instance_norm with running stats")
    run("x = torch.randn(2, 3, 6)\nrm = torch.rand(3)\nrv = torch.rand(3) + 0.5",
        "F.instance_norm(x, rm, rv, use_input_stats=False)", label="F.instance_norm by running stats")
    run("m = nn.InstanceNorm1d(3)", "err(lambda: m(torch.randn(2, 3, 4, 5)))", label="InstanceNorm1d 4D input")
    run("m = nn.InstanceNorm2d(3, affine=True)", "m(torch.randn(2, 4, 4, 5))", raises="RuntimeError",
        label="InstanceNorm2d channel mismatch")
    run("x = torch.randn(2, 3, 1)", "err(lambda: F.instance_norm(x))", label="instance_norm one spatial element")

    # PReLU: one slope or one per channel; zero inputs take the slope's branch (gradient w * g).
    run("m = nn.PReLU()\nx = torch.randn(4, 3).requires_grad_()\nout = m(x)\nout.sum().backward()", grads)
    run("m = nn.PReLU(3, init=0.1)\nx = torch.randn(2, 3, 4, 4).requires_grad_()\nout = m(x)\n"
        "(out * torch.randn_like(out)).sum().backward()", grads, label="PReLU per channel backward")
    run("m = nn.PReLU(init=-0.5)\nx = torch.tensor([-2., -0., 0., 1.5], requires_grad=True)\nout = m(x)\n"
        "out.sum().backward()", "(out, 1 / out, x.grad, m.weight.grad)", label="PReLU at zero")
    run("w = torch.tensor([0.2, 0.3], dtype=torch.float64, requires_grad=True)\n"
        "x = torch.randn(3, 2, 5, dtype=torch.float64, requires_grad=True)\nout = F.prelu(x, w)\n"
        "g = torch.autograd.grad(out.pow(2).sum(), (x, w), create_graph=True)\n"
        "gg = torch.autograd.grad(g[0].sum() + g[1].sum(), (x, w))", "(out, g, gg)",
        label="F.prelu double backward")
    run("m = nn.PReLU(3)", "(repr(m), repr(nn.PReLU()), list(m.state_dict().keys()))", label="PReLU repr")
    run("x = torch.tensor(-2., requires_grad=True)\nw = torch.tensor([0.5], requires_grad=True)\n"
        "out = F.prelu(x, w)\nout.backward()", "(out, x.grad, w.grad)", label="prelu zero-dim input")
    # ember's messages carry the op ("[prelu] ..."): the class is compared.
    run("m = nn.PReLU(3)", "m(torch.randn(2, 4))", raises="RuntimeError", label="PReLU channel mismatch")
    run("w = torch.rand(2)", "F.prelu(torch.tensor(1.), w)", raises="RuntimeError",
        label="prelu zero-dim input, two slopes")
    run("w = torch.rand(2, 2)", "F.prelu(torch.randn(2, 4), w)", raises="RuntimeError",
        label="prelu 2-D weight")

    # Conv3d: strides, dilation, groups, "same" with an even kernel, the padding modes, unbatched.
    run("m = nn.Conv3d(2, 4, 3)\nx = torch.randn(2, 2, 5, 6, 4).requires_grad_()\nout = m(x)\n"
        "(out * torch.randn_like(out)).sum().backward()", grads, atol=1e-4)
    run("m = nn.Conv3d(4, 6, (2, 3, 1), stride=(2, 1, 2), padding=(1, 0, 1), dilation=(2, 1, 1), groups=2)\n"
        "x = torch.randn(1, 4, 7, 5, 6).requires_grad_()\nout = m(x)\nout.pow(2).sum().backward()",
        grads, atol=1e-4, label="Conv3d strided, dilated, grouped")
    for mode in ("zeros", "reflect", "replicate", "circular"):
        run("m = nn.Conv3d(2, 3, (2, 3, 4), padding='same', padding_mode='%s', bias=False)\n"
            "x = torch.randn(2, 2, 4, 5, 6).requires_grad_()\nout = m(x)\nout.sum().backward()" % mode,
            grads, atol=1e-4, label="Conv3d same %s" % mode)
    run("m = nn.Conv3d(3, 2, 2, padding=1)\nx = torch.randn(3, 3, 4, 4).requires_grad_()\n"
        "out = m(x)\nout.sum().backward()", grads, atol=1e-4, label="Conv3d unbatched")
    run("x = torch.randn(1, 2, 3, 4, 4, dtype=torch.float64, requires_grad=True)\n"
        "w = torch.randn(3, 2, 2, 2, 2, dtype=torch.float64, requires_grad=True)\n"
        "b = torch.randn(3, dtype=torch.float64, requires_grad=True)\n"
        "out = F.conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 1))\n"
        "g = torch.autograd.grad(out.pow(2).sum(), (x, w, b), create_graph=True)\n"
        "gg = torch.autograd.grad(g[0].sum() + g[1].pow(2).sum(), (x, w))",
        "(out, g, gg)", atol=1e-8, label="F.conv3d double backward")
    run("m = nn.Conv3d(2, 4, (1, 2, 3), stride=2, padding='valid', dilation=(1, 2, 1), groups=2, bias=False, "
        "padding_mode='replicate')", "(repr(m), repr(nn.Conv3d(1, 2, 3)), [(n, tuple(p.shape)) for n, p in m.named_parameters()])",
        label="Conv3d repr and parameters")
    run("m = nn.Conv3d(2, 4, 3)", "m(torch.randn(2, 2, 5, 5))", raises="RuntimeError", label="Conv3d 3-D input")
    run("m = nn.Conv3d(2, 4, 3)", "m(torch.randn(1, 3, 5, 5, 5))", raises="RuntimeError",
        label="Conv3d channel mismatch")
    run("m = nn.Conv3d(2, 4, 3)", "m(torch.randn(1, 2, 2, 5, 5))", raises="RuntimeError",
        label="Conv3d kernel deeper than input")
    return out
