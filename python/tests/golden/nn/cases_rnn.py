"""Golden cases of torch.nn's recurrent layers (RNN, LSTM, GRU and their cells): parameter names
and shapes, default initialisation, forward over batched, batch_first and unbatched inputs, given
and missing states, several layers, both directions, LSTM projections, backward, printing and
PyTorch's argument errors. cases.py adds them as the group "rnn"; `C` is its case builder."""


def cases(C):
    out = []
    state = "(list(m.state_dict().items()), out)"
    grads = "(out, [(n, p.grad) for n, p in m.named_parameters()], x.grad)"

    def run(setup, expr=state, atol=1e-5, label=None):
        lines = setup.strip().splitlines()
        out.append(C(expr, setup, atol=atol, rtol=1e-4,
                     label=label or "%s -> %s" % (lines[0], expr[:24])))

    for cls in ("RNN", "LSTM", "GRU"):
        run("m = nn.%s(3, 4)\nx = torch.randn(5, 2, 3)\nout = m(x)" % cls)
        run("m = nn.%s(3, 4, num_layers=2, bidirectional=True)\nx = torch.randn(5, 2, 3)\nout = m(x)" % cls)
        run("m = nn.%s(3, 4, batch_first=True, bias=False)\nx = torch.randn(2, 5, 3)\nout = m(x)" % cls)
        run("m = nn.%s(3, 4, num_layers=2)\nx = torch.randn(5, 3)\nout = m(x)" % cls,
            label="%s unbatched" % cls)
        run("m = nn.%s(3, 4, num_layers=3, bidirectional=True, batch_first=True)\n"
            "x = torch.randn(2, 4, 3, requires_grad=True)\nout = m(x)\n"
            "(out[0].pow(2).sum() + out[1][0].sum() if isinstance(out[1], tuple) else "
            "out[0].pow(2).sum() + out[1].sum()).backward()" % cls, grads, atol=1e-4,
            label="%s backward 3 layers bidirectional" % cls)
        run("m = nn.%s(3, 4, num_layers=2, dropout=0.5)\nx = torch.randn(6, 2, 3)\nout = m(x)" % cls,
            "out", label="%s dropout between layers (training)" % cls)
        run("m = nn.%s(3, 4, num_layers=2, dropout=0.5)\nm.eval()\nx = torch.randn(6, 2, 3)\nout = m(x)" % cls,
            "out", label="%s dropout in eval" % cls)
    run("m = nn.RNN(3, 4, nonlinearity='relu', num_layers=2)\nx = torch.randn(5, 2, 3)\n"
        "h = torch.randn(2, 2, 4)\nout = m(x, h)")
    run("m = nn.GRU(3, 4, bidirectional=True)\nx = torch.randn(5, 2, 3)\nh = torch.randn(2, 2, 4)\nout = m(x, h)")
    run("m = nn.LSTM(3, 4, num_layers=2)\nx = torch.randn(5, 2, 3)\n"
        "h = (torch.randn(2, 2, 4), torch.randn(2, 2, 4))\nout = m(x, h)")
    run("m = nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True)\nx = torch.randn(5, 2, 3)\nout = m(x)")
    run("m = nn.LSTM(3, 5, proj_size=2)\nx = torch.randn(4, 3, requires_grad=True)\n"
        "out = m(x, (torch.randn(1, 2), torch.randn(1, 5)))\n(out[0].sum() + out[1][1].sum()).backward()",
        grads, atol=1e-4, label="LSTM projections unbatched backward")
    run("m = nn.LSTM(3, 4, dtype=torch.float64)\nx = torch.randn(5, 2, 3, dtype=torch.float64)\nout = m(x)",
        label="LSTM float64")
    out.append(C("(repr(a), repr(b), repr(c), repr(d), [(n, tuple(p.shape)) for n, p in a.named_parameters()])",
                 "a = nn.LSTM(3, 4, proj_size=2, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True)\n"
                 "b = nn.RNN(3, 4, 1, 'relu', False)\nc = nn.GRU(3, 4, bias=False)\nd = nn.RNN(3, 4)",
                 label="recurrent layers' repr and parameters"))
    out.append(C("(len(m.all_weights), [tuple(w.shape) for w in m.all_weights[1]], m._flat_weights_names[:5])",
                 "m = nn.GRU(3, 4, num_layers=2)\nm.flatten_parameters()", label="all_weights"))

    for cls, state_in in (("RNNCell", "h"), ("GRUCell", "h"), ("LSTMCell", "(h, c)")):
        run("m = nn.%s(3, 4)\nx = torch.randn(2, 3)\nout = m(x)" % cls)
        run("m = nn.%s(3, 4, bias=False)\nx = torch.randn(3, requires_grad=True)\nh = torch.randn(4)\n"
            "c = torch.randn(4)\nout = m(x, %s)\n(out[0] if isinstance(out, tuple) else out).pow(2).sum().backward()"
            % (cls, state_in), grads, atol=1e-4, label="%s unbatched backward" % cls)
    run("m = nn.RNNCell(3, 4, nonlinearity='relu')\nx = torch.randn(2, 3)\nout = m(x, torch.randn(2, 4))")
    out.append(C("(repr(nn.RNNCell(3, 4, nonlinearity='relu')), repr(nn.LSTMCell(3, 4)), repr(nn.GRUCell(3, 4, bias=False)))",
                 label="cells' repr"))

    # torch.lstm & co (the ops behind the modules) and the functional cells.
    run("m = nn.LSTM(3, 4, num_layers=2)\nx = torch.randn(5, 2, 3)\nh = [torch.zeros(2, 2, 4), torch.randn(2, 2, 4)]\n"
        "out = torch.lstm(x, h, m._flat_weights, True, 2, 0.0, False, False, False)", "out", label="torch.lstm")
    run("m = nn.GRUCell(3, 4)\nout = torch.gru_cell(torch.randn(2, 3), torch.randn(2, 4), m.weight_ih, m.weight_hh, m.bias_ih, m.bias_hh)",
        "out", label="torch.gru_cell")
    run("m = nn.LSTMCell(3, 4)\nout = torch.lstm_cell(torch.randn(2, 3), (torch.randn(2, 4), torch.randn(2, 4)), m.weight_ih, m.weight_hh)",
        "out", label="torch.lstm_cell without biases")

    # ember's own errors carry "[op] " before PyTorch's text, so the core's are compared by class
    # here (tests/nn/rnn_test.cpp checks their words); the module's own by class and text.
    core_errors = [
        ("m(torch.randn(2, 5, 6))", "m = nn.LSTM(3, 4)"),
        ("m(torch.randn(2, 5, 3), (torch.zeros(1, 5, 4), torch.zeros(1, 4, 4)))", "m = nn.LSTM(3, 4)"),
        ("m(torch.randn(5, 3), (torch.zeros(1, 5, 4), torch.zeros(1, 4, 4)))", "m = nn.LSTM(3, 4)"),
        ("m(torch.randn(5, 2, 3), torch.zeros(2, 2, 4))", "m = nn.GRU(3, 4)"),
        ("m(torch.randn(5, 3), torch.zeros(1, 1, 4))", "m = nn.GRU(3, 4)"),
        ("m(torch.randn(2, 2, 2, 3))", "m = nn.RNN(3, 4)"),
        ("m(torch.randn(5, 2))", "m = nn.GRUCell(3, 4)"),
        ("m(torch.randn(5, 3), torch.zeros(4, 4))", "m = nn.GRUCell(3, 4)"),
        ("m(torch.randn(5, 3), (torch.zeros(5, 4), torch.zeros(5, 3)))", "m = nn.LSTMCell(3, 4)"),
    ]
    for expr, setup in core_errors:
        out.append(C(expr, setup, raises="RuntimeError", label="%s; %s" % (setup[4:], expr)))
    for ctor in ("nn.RNN(3, 4, nonlinearity='foo')", "nn.GRU(3, 4, proj_size=2)",
                 "nn.LSTM(3, 4, proj_size=4)", "nn.LSTM(3, 4, dropout=1.5)"):
        out.append(C("err(lambda: %s)" % ctor))
    out.append(C("m(torch.randn(2, 2, 3))", "m = nn.GRUCell(3, 4)", raises="AssertionError"))
    return out
