"""Golden cases of torch.nn: the Module system, containers, nn.init, every layer's default
initialisation, forward and printing, gradients, clipping and the transformer blocks, compared
against PyTorch 1.13 (generate.py here writes <group>.json; python/tests/test_nn_golden.py
replays them with `torch` bound to ember).

Plain data, no torch import. A case is a dict like python/tests/golden/cases.py's:
  setup   statements (exec), expr  one expression (eval), raises  the exception class name,
  rtol/atol  tolerance for every float in the result, label  a short id text.
Both sides call torch.manual_seed(0) before each case; the names are `torch` and `np`. A case's
code is prelude + "\n" + setup: the prelude (PRE plus the setup shared by a block of cases) is
kept once per group in the JSON file. PRE binds nn, F, and err(f) -> "ExcType: message" (for
errors whose message is nn's own and must be PyTorch's word for word).

Append new cases at the END of a group: a case's id is its index in the group.
"""

PRE = """nn = torch.nn
F = torch.nn.functional
def err(f):
    try:
        f()
    except Exception as e:
        return type(e).__name__ + ': ' + str(e)
    return 'no error'
"""


def C(expr, setup="", raises=None, rtol=None, atol=None, label=None, prelude=""):
    """One case. prelude: the setup text it shares with other cases (stored once per group in
    the JSON file); the case's setup is PRE + prelude + setup."""
    case = {"prelude": PRE + prelude, "setup": setup, "expr": expr}
    if label:
        case["label"] = label
    if raises:
        case["raises"] = raises
    if rtol is not None:
        case["rtol"] = rtol
    if atol is not None:
        case["atol"] = atol
    return case


def block(setup, items, **common):
    """Cases sharing a setup: an item is an expr, (expr, raises), or a dict of C()'s arguments
    whose own "setup" is appended to the shared one."""
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(C(item, prelude=setup, **common))
        elif isinstance(item, tuple):
            out.append(C(item[0], raises=item[1], prelude=setup, **common))
        else:
            kw = dict(common)
            kw.update(item)
            own = kw.get("setup", "")
            if own and "label" not in kw:
                kw["label"] = "%s -> %s" % (own.strip().splitlines()[-1], kw["expr"])
            out.append(C(prelude=setup, **kw))
    return out


KE, RE, TE, VE, AE = "KeyError", "RuntimeError", "TypeError", "ValueError", "AttributeError"

# The reference's MyModel, small.
MYMODEL = """
class MyModel(nn.Module):
    def __init__(self, input_dim, hidden_dim, num_classes):
        super().__init__()
        self.linear1 = nn.Linear(input_dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, num_classes)
        self.register_buffer('step_count', torch.zeros(1))
        self.hidden_dim = hidden_dim
    def forward(self, x):
        self.step_count += 1
        x = torch.relu(self.linear1(x))
        return self.linear2(x)
m = MyModel(4, 5, 3)
"""

# A nested model with every container and registration kind.
NET = """
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.act = nn.ReLU(inplace=True)
    def forward(self, x):
        return self.act(self.bn(self.conv(x)))
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(Block(), nn.MaxPool2d(2), nn.Flatten())
        self.heads = nn.ModuleList([nn.Linear(16, 2), nn.Linear(16, 3, bias=False)])
        self.extra = nn.ModuleDict({'drop': nn.Dropout(0.25), 'norm': nn.LayerNorm(16)})
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer('counter', torch.zeros((), dtype=torch.long))
        self.register_buffer('tmp', torch.zeros(2), persistent=False)
        self.plist = nn.ParameterList([nn.Parameter(torch.zeros(2, 3)), nn.Parameter(torch.zeros(4))])
        self.pdict = nn.ParameterDict({'b': nn.Parameter(torch.zeros(2)), 'a': nn.Parameter(torch.ones(1, 2))})
    def forward(self, x):
        h = self.extra['norm'](self.extra['drop'](self.features(x)))
        return [head(h) * self.scale for head in self.heads]
net = Net()
"""

NAMES = "[n for n, _ in {}]"

# ══ module: registration, iteration, state_dict, load_state_dict, modes, conversion ═════════════
MODULE = []
MODULE += block(MYMODEL, [
    "[(n, tuple(p.shape), p.requires_grad) for n, p in m.named_parameters()]",
    "[(n, b) for n, b in m.named_buffers()]",
    "[(n, type(x).__name__) for n, x in m.named_modules()]",
    "[(n, type(x).__name__) for n, x in m.named_children()]",
    "[type(x).__name__ for x in m.children()]",
    "[type(x).__name__ for x in m.modules()]",
    "sum(p.numel() for p in m.parameters())",
    "sum(p.numel() for p in m.parameters() if p.requires_grad)",
    "list(m.state_dict().keys())",
    "m.state_dict()",
    "dict(m.state_dict()._metadata)",
    "list(m.state_dict()._metadata.keys())",
    "type(m.state_dict()).__name__",
    "[v.requires_grad for v in m.state_dict().values()]",
    "[v.requires_grad for v in m.state_dict(keep_vars=True).values()]",
    "[type(v).__name__ for v in m.state_dict(keep_vars=True).values()]",
    "list(m.state_dict(prefix='model.').keys())",
    "list(m.state_dict(prefix='model.')._metadata.keys())",
    "(isinstance(m.linear1.weight, nn.Parameter), isinstance(m.linear1.weight, torch.Tensor))",
    "(isinstance(m.step_count, nn.Parameter), isinstance(m.step_count, torch.Tensor))",
    "('hidden_dim' in m.__dict__, m.hidden_dim, 'linear1' in m.__dict__, 'step_count' in m.__dict__)",
    "(list(m._parameters), list(m._buffers), list(m._modules))",
    "m.linear1.weight is m._modules['linear1']._parameters['weight']",
    "repr(m)",
    "str(m)",
    "repr(m.linear1)",
    "m.training",
    "[x.training for x in m.eval().modules()]",
    "[x.training for x in m.eval().train().modules()]",
    "m.eval() is m",
    ("m.train('yes')", VE),
    "err(lambda: m.train('yes'))",
    {"setup": "out = m(torch.randn(2, 4))\nout2 = m(torch.randn(2, 4))", "expr": "(out.shape, m.step_count)"},
    {"setup": "b = m.step_count\nm(torch.randn(2, 4))", "expr": "(b is m.step_count, m._buffers['step_count'])"},
    {"setup": "m.linear1.weight.requires_grad_(False)",
     "expr": "sum(p.numel() for p in m.parameters() if p.requires_grad)"},
    {"setup": "m.requires_grad_(False)", "expr": "[p.requires_grad for p in m.parameters()]"},
    {"setup": "m.requires_grad_(False).requires_grad_()", "expr": "[p.requires_grad for p in m.parameters()]"},
    "[n for n, _ in m.named_parameters(recurse=False)]",
    "[n for n, _ in m.named_buffers(recurse=False)]",
    "[n for n, _ in m.named_parameters(prefix='top')]",
    "[n for n, _ in m.named_buffers(prefix='top')]",
    "[n for n, _ in m.named_modules(prefix='top')]",
    "[n for n, _ in m.linear1.named_parameters()]",
    "('linear1' in dir(m), 'step_count' in dir(m), 'hidden_dim' in dir(m), 'forward' in dir(m), 'weight' in dir(m.linear1))",
    "dir(m) == sorted(dir(m))",
    ("m.nothing", AE),
    "err(lambda: m.nothing)",
    "err(lambda: m.linear1.nothing)",
    "m.get_submodule('linear1').out_features",
    "m.get_submodule('') is m",
    "err(lambda: m.get_submodule('linear3'))",
    "err(lambda: m.get_submodule('hidden_dim'))",
    "m.get_parameter('linear2.bias').shape",
    "err(lambda: m.get_parameter('linear2.nothing'))",
    "err(lambda: m.get_parameter('step_count'))",
    "m.get_buffer('step_count')",
    "err(lambda: m.get_buffer('linear1.weight'))",
])
# ── assignment and registration rules ──
MODULE += block(MYMODEL, [
    {"setup": "m.extra = nn.Parameter(torch.ones(2))", "expr": NAMES.format("m.named_parameters()")},
    {"setup": "m.plain = torch.ones(2)",
     "expr": "(NAMES, 'plain' in m.__dict__)".replace("NAMES", NAMES.format("m.named_parameters()"))},
    {"setup": "m.sub = nn.Sequential(nn.Linear(2, 2))", "expr": NAMES.format("m.named_modules()")},
    {"setup": "m.linear1 = nn.Linear(4, 2)", "expr": "(NAMES, m.linear1.out_features)".replace("NAMES", NAMES.format("m.named_parameters()"))},
    {"setup": "m.linear1 = None", "expr": "(NAMES, m.linear1, list(m._modules))".replace("NAMES", NAMES.format("m.named_modules()"))},
    {"setup": "m.linear1.bias = None", "expr": "(list(m.state_dict()), m.linear1.bias, repr(m.linear1))"},
    {"setup": "m.step_count = torch.full((1,), 7.)", "expr": "(m.state_dict()['step_count'], 'step_count' in m.__dict__)"},
    {"setup": "m.step_count = None", "expr": "(list(m.state_dict()), NAMES)".replace("NAMES", NAMES.format("m.named_buffers()"))},
    {"setup": "m.step_count = nn.Parameter(torch.zeros(1))",
     "expr": "(list(m._buffers), list(m._parameters), list(m.state_dict()))"},
    {"setup": "m.hidden_dim = nn.Linear(1, 1)", "expr": "('hidden_dim' in m.__dict__, list(m._modules))"},
    {"setup": "m.register_buffer('extra', torch.ones(2), persistent=False)",
     "expr": "(NAMES, list(m.state_dict()), sorted(m._non_persistent_buffers_set))".replace("NAMES", NAMES.format("m.named_buffers()"))},
    {"setup": "m.register_buffer('extra', torch.ones(2), persistent=False)\nm.register_buffer('extra', torch.ones(2))",
     "expr": "list(m.state_dict())"},
    {"setup": "m.register_buffer('nothing', None)", "expr": "(list(m.state_dict()), m.nothing, list(m._buffers))"},
    {"setup": "m.register_parameter('p', None)", "expr": "(list(m.state_dict()), m.p, list(m._parameters))"},
    {"setup": "m.register_parameter('p', nn.Parameter(torch.ones(1)))", "expr": "list(m.state_dict())"},
    {"setup": "m.add_module('head', nn.Tanh())", "expr": "(list(m._modules), repr(m))"},
    {"setup": "m.register_module('head', nn.Tanh())", "expr": "list(m._modules)"},
    {"setup": "m.add_module('head', None)", "expr": "(list(m._modules), repr(m), [n for n, _ in m.named_modules()])"},
    {"setup": "del m.linear2", "expr": "(list(m._modules), list(m.state_dict()))"},
    {"setup": "del m.step_count", "expr": "list(m.state_dict())"},
    {"setup": "del m.linear1.bias", "expr": "list(m.state_dict())"},
    {"setup": "del m.hidden_dim", "expr": "'hidden_dim' in m.__dict__"},
    ("m.register_buffer('linear1', torch.zeros(1))", KE),
    "err(lambda: m.register_buffer('linear1', torch.zeros(1)))",
    "err(lambda: m.register_buffer('a.b', torch.zeros(1)))",
    "err(lambda: m.register_buffer('', torch.zeros(1)))",
    "err(lambda: m.register_buffer('x', 5))",
    "err(lambda: m.register_buffer(3, torch.zeros(1)))",
    "err(lambda: m.register_parameter('hidden_dim', None))",
    "err(lambda: m.register_parameter('x', torch.zeros(1)))",
    "err(lambda: m.register_parameter('a.b', None))",
    "err(lambda: m.register_parameter('x', nn.Parameter(torch.zeros(2)) * 2))",
    "err(lambda: m.add_module('x', 3))",
    "err(lambda: m.add_module('a.b', nn.ReLU()))",
    "err(lambda: m.add_module('', nn.ReLU()))",
    "err(lambda: m.add_module('hidden_dim', nn.ReLU()))",
    "err(lambda: setattr(m, 'linear1', 3))",
    "err(lambda: setattr(m.linear1, 'weight', torch.zeros(2)))",
    "err(lambda: setattr(m, 'step_count', 3))",
    ("setattr(m, 'linear1', 3)", TE),
    ("m.register_parameter('x', torch.zeros(1))", TE),
])
MODULE += block("""
class Early(nn.Module):
    def __init__(self, kind):
        if kind == 'p':
            self.w = nn.Parameter(torch.zeros(1))
        elif kind == 'm':
            self.l = nn.ReLU()
        else:
            self.register_buffer('b', torch.zeros(1))
        super().__init__()
""", [
    "err(lambda: Early('p'))", "err(lambda: Early('m'))", "err(lambda: Early('b'))",
    ("Early('p')", AE),
])
# ── shared parameters and modules ──
MODULE += block("""
a = nn.Linear(3, 3)
b = nn.Linear(3, 3)
b.weight = a.weight
seq = nn.Sequential(a, b, a)
""", [
    NAMES.format("seq.named_parameters()"),
    NAMES.format("seq.named_modules()"),
    NAMES.format("seq.named_modules(remove_duplicate=False)"),
    NAMES.format("seq.named_children()"),
    "list(seq.state_dict().keys())",
    "len(list(seq.parameters()))",
    "len(list(seq.modules()))",
    "repr(seq)",
])
# ── the nested model ──
MODULE += block(NET, [
    "repr(net)",
    NAMES.format("net.named_parameters()"),
    NAMES.format("net.named_buffers()"),
    NAMES.format("net.named_modules()"),
    "[(n, type(x).__name__) for n, x in net.named_modules()]",
    "list(net.state_dict().keys())",
    "dict(net.state_dict()._metadata)",
    "[(k, v) for k, v in net.state_dict().items() if not k.startswith('features.0.conv')]",
    "repr(net.plist)", "repr(net.pdict)", "repr(net.features)", "repr(net.heads)", "repr(net.extra)",
    {"setup": "out = net(torch.randn(2, 3, 4, 4))", "expr": "out", "atol": 1e-5},
    {"setup": "net.eval()\nout = net(torch.randn(2, 3, 4, 4))", "expr": "(out, net.features[0].bn.running_mean)", "atol": 1e-5},
    {"setup": "out = net(torch.randn(2, 3, 4, 4))",
     "expr": "(net.features[0].bn.running_mean, net.features[0].bn.running_var, net.features[0].bn.num_batches_tracked)",
     "atol": 1e-5},
    {"setup": "net.double()", "expr": "[(n, t.dtype) for n, t in net.state_dict().items()]"},
    {"setup": "net.half()", "expr": "[(n, t.dtype) for n, t in net.state_dict().items()]"},
    {"setup": "net.bfloat16()", "expr": "[(n, t.dtype) for n, t in net.state_dict().items()]"},
    {"setup": "net.double().float()", "expr": "[(n, t.dtype) for n, t in net.state_dict().items()]"},
    {"setup": "net.to(torch.float64)", "expr": "[t.dtype for t in net.buffers()]"},
    {"setup": "net.to('cpu', torch.float64)", "expr": "[t.dtype for t in net.parameters()]"},
    {"setup": "net.to(dtype=torch.float64)", "expr": "[t.dtype for t in net.parameters()]"},
    {"setup": "net.to(torch.zeros(1, dtype=torch.float64))", "expr": "[t.dtype for t in net.parameters()]"},
    {"setup": "net.to(device='cpu')", "expr": "[str(t.device) for t in net.parameters()]"},
    {"setup": "net.cpu()", "expr": "[t.dtype for t in net.parameters()]"},
    {"setup": "p = net.heads[0].weight\nnet.double()", "expr": "(p is net.heads[0].weight, p.dtype, type(p).__name__, p.requires_grad, p.is_leaf)"},
    {"setup": "b = net.features[0].bn.running_mean\nnet.double()", "expr": "(b is net.features[0].bn.running_mean, net.features[0].bn.running_mean.dtype)"},
    {"setup": "net(torch.randn(2, 3, 4, 4))[0].sum().backward()\nnet.double()",
     "expr": "[(n, None if p.grad is None else p.grad.dtype) for n, p in net.named_parameters()]"},
    "err(lambda: net.to(torch.int32))",
    ("net.to(torch.int64)", TE),
    "net.to(torch.float64) is net",
    {"setup": "seen = []\nnet.apply(lambda mod: seen.append(type(mod).__name__))", "expr": "seen"},
    "net.apply(lambda mod: None) is net",
    {"setup": "net(torch.randn(2, 3, 4, 4))[0].sum().backward()",
     "expr": "[(n, p.grad) for n, p in net.named_parameters() if n.startswith('heads') or n == 'scale']",
     "atol": 1e-5},
    {"setup": "net(torch.randn(2, 3, 4, 4))[0].sum().backward()\nnet.zero_grad()",
     "expr": "[(n, p.grad) for n, p in net.named_parameters()]"},
    {"setup": "net(torch.randn(2, 3, 4, 4))[0].sum().backward()\nnet.zero_grad(set_to_none=True)",
     "expr": "[(n, p.grad) for n, p in net.named_parameters()]"},
    {"setup": "net(torch.randn(2, 3, 4, 4))[1].sum().backward()\nnet.zero_grad()",
     "expr": "[(n, p.grad.requires_grad) for n, p in net.named_parameters() if p.grad is not None]"},
    "net.get_submodule('features.0.bn').num_features",
    "err(lambda: net.get_submodule('features.5'))",
    "net.get_buffer('features.0.bn.running_var')",
    "net.get_parameter('pdict.a')",
    NAMES.format("net.features.named_parameters(prefix='features')"),
    "len(list(net.parameters()))",
    "sum(p.numel() for p in net.parameters())",
])

# ── load_state_dict ──
LOAD_SETUP = MYMODEL + """
torch.manual_seed(1)
m2 = MyModel(4, 5, 3)
sd = m.state_dict()
"""
MODULE += block(LOAD_SETUP, [
    {"setup": "r = m2.load_state_dict(sd)", "expr": "(repr(r), str(r), tuple(r), r.missing_keys, r.unexpected_keys, type(r).__name__)"},
    {"setup": "r = m2.load_state_dict(sd)", "expr": "m2.state_dict()"},
    {"setup": "p = m2.linear1.weight\nm2.load_state_dict(sd)",
     "expr": "(p is m2.linear1.weight, p.requires_grad, p.is_leaf, p.grad_fn is None, torch.equal(p, m.linear1.weight))"},
    {"setup": "m2.load_state_dict(sd)\nm.linear1.weight.data.fill_(3)", "expr": "m2.linear1.weight[0, 0]"},
    {"setup": "del sd['linear1.bias']\nr = m2.load_state_dict(sd, strict=False)", "expr": "(repr(r), r.missing_keys, r.unexpected_keys)"},
    {"setup": "sd['extra'] = torch.ones(1)\nsd['linear2.extra'] = torch.ones(1)\nsd['linear3.weight'] = torch.ones(1)\nr = m2.load_state_dict(sd, strict=False)",
     "expr": "(repr(r), r.missing_keys, r.unexpected_keys, m2.linear1.weight)"},
    {"setup": "del sd['linear1.bias']", "expr": "err(lambda: m2.load_state_dict(sd))"},
    {"setup": "del sd['linear1.bias']", "expr": "m2.load_state_dict(sd)", "raises": RE},
    {"setup": "sd['extra'] = torch.ones(1)\ndel sd['step_count']", "expr": "err(lambda: m2.load_state_dict(sd))"},
    {"setup": "sd['linear1.weight'] = torch.ones(2, 2)", "expr": "err(lambda: m2.load_state_dict(sd))"},
    {"setup": "sd['linear1.weight'] = torch.ones(2, 2)", "expr": "err(lambda: m2.load_state_dict(sd, strict=False))"},
    {"setup": "sd['linear1.weight'] = torch.ones(2, 2)\ndel sd['step_count']", "expr": "err(lambda: m2.load_state_dict(sd))"},
    {"setup": "sd['linear1.weight'] = 3.0", "expr": "err(lambda: m2.load_state_dict(sd))"},
    "err(lambda: m2.load_state_dict([1, 2]))",
    {"setup": "sd2 = dict(sd)\nr = m2.load_state_dict(sd2)", "expr": "(repr(r), m2.linear2.bias)"},
    {"setup": "sd['step_count'] = torch.tensor([5.0])\nm2.load_state_dict(sd)", "expr": "m2.step_count"},
    {"setup": "r = m2.linear1.load_state_dict({'weight': sd['linear1.weight'], 'bias': sd['linear1.bias']})",
     "expr": "(repr(r), m2.linear1.bias)"},
    {"setup": "sd64 = {k: v.double() for k, v in sd.items()}\nm2.load_state_dict(sd64)",
     "expr": "(m2.linear1.weight.dtype, m2.linear1.bias)"},
    {"setup": "calls = []\nm2.register_load_state_dict_post_hook(lambda mod, keys: calls.append((type(mod).__name__, list(keys.missing_keys))))\n"
              "del sd['linear2.weight']\nm2.load_state_dict(sd, strict=False)", "expr": "calls"},
    {"setup": "def hook(mod, keys):\n    keys.missing_keys.clear()\nm2.register_load_state_dict_post_hook(hook)\n"
              "del sd['linear2.weight']\nr = m2.load_state_dict(sd)", "expr": "repr(r)"},
])
BN_LOAD = """
bn = nn.BatchNorm1d(3)
bn(torch.randn(4, 3))
sd = bn.state_dict()
bn2 = nn.BatchNorm1d(3)
"""
MODULE += block(BN_LOAD, [
    "(list(sd.keys()), dict(sd._metadata))",
    {"setup": "bn2.load_state_dict(sd)", "expr": "bn2.state_dict()", "atol": 1e-6},
    {"setup": "del sd['num_batches_tracked']", "expr": "err(lambda: bn2.load_state_dict(sd))"},
    {"setup": "del sd['num_batches_tracked']\nsd._metadata[''] = {'version': 1}\nr = bn2.load_state_dict(sd)",
     "expr": "(repr(r), bn2.num_batches_tracked)"},
    {"setup": "del sd['num_batches_tracked']\ndel sd._metadata\nr = bn2.load_state_dict(sd)",
     "expr": "(repr(r), bn2.num_batches_tracked)"},
    {"setup": "seq = nn.Sequential(nn.Linear(3, 3), bn)", "expr": "dict(seq.state_dict()._metadata)"},
])

# ── containers ──
SEQ = """
seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
"""
MODULE += block(SEQ, [
    "len(seq)", "repr(seq[0])", "repr(seq[-1])", "repr(seq[1:])", "type(seq[1:]).__name__",
    "list(seq[1:]._modules)", "list(seq[::2]._modules)", "[type(x).__name__ for x in seq]",
    ("seq[3]", "IndexError"), "err(lambda: seq[3])", "err(lambda: seq[-4])",
    {"setup": "seq.append(nn.Sigmoid())", "expr": "(len(seq), list(seq._modules), repr(seq))"},
    {"setup": "seq.insert(1, nn.Tanh())", "expr": "[(k, type(v).__name__) for k, v in seq._modules.items()]"},
    {"setup": "seq.insert(-1, nn.Tanh())", "expr": "[(k, type(v).__name__) for k, v in seq._modules.items()]"},
    {"setup": "seq.extend([nn.Tanh(), nn.Sigmoid()])", "expr": "[(k, type(v).__name__) for k, v in seq._modules.items()]"},
    {"setup": "del seq[1]", "expr": "[(k, type(v).__name__) for k, v in seq._modules.items()]"},
    {"setup": "del seq[0:2]", "expr": "[(k, type(v).__name__) for k, v in seq._modules.items()]"},
    {"setup": "p = seq.pop(1)", "expr": "(type(p).__name__, list(seq._modules))"},
    {"setup": "seq[1] = nn.Tanh()", "expr": "[(k, type(v).__name__) for k, v in seq._modules.items()]"},
    {"setup": "s2 = seq + nn.Sequential(nn.Tanh())", "expr": "[(k, type(v).__name__) for k, v in s2._modules.items()]"},
    {"setup": "seq += nn.Sequential(nn.Tanh())", "expr": "[(k, type(v).__name__) for k, v in seq._modules.items()]"},
    {"setup": "s2 = seq * 2", "expr": "([(k, type(v).__name__) for k, v in s2._modules.items()], s2[0] is s2[3])"},
    {"setup": "s2 = 2 * seq", "expr": "len(s2)"},
    {"setup": "seq *= 2", "expr": "(list(seq._modules), len(list(seq.parameters())))"},
    ("seq * 0", VE), "err(lambda: seq + 1)",
    {"setup": "x = torch.randn(4, 2)", "expr": "seq(x)"},
    "'0' in dir(seq)",
    "seq.state_dict()",
    {"setup": "from collections import OrderedDict\nseq = nn.Sequential(OrderedDict([('fc', nn.Linear(2, 2)), ('act', nn.GELU())]))",
     "expr": "(repr(seq), list(seq.state_dict()), repr(seq.fc), repr(seq[1:]))"},
    {"setup": "seq = nn.Sequential()", "expr": "(repr(seq), len(seq), seq(torch.ones(2)))"},
])
MODULE += block("ml = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])", [
    "(len(ml), repr(ml), list(ml._modules))", "repr(ml[-1])", "type(ml[0:1]).__name__", "len(ml[0:1])",
    "err(lambda: ml[2])",
    {"setup": "ml.append(nn.Tanh())\nml.extend([nn.Sigmoid()])\nml.insert(0, nn.GELU())", "expr": "[(k, type(v).__name__) for k, v in ml._modules.items()]"},
    {"setup": "ml += [nn.Tanh()]", "expr": "[(k, type(v).__name__) for k, v in ml._modules.items()]"},
    {"setup": "m2 = ml + nn.ModuleList([nn.Tanh()])", "expr": "[(k, type(v).__name__) for k, v in m2._modules.items()]"},
    {"setup": "del ml[0]", "expr": "[(k, type(v).__name__) for k, v in ml._modules.items()]"},
    {"setup": "p = ml.pop(0)", "expr": "(type(p).__name__, list(ml._modules))"},
    {"setup": "ml[1] = nn.Tanh()", "expr": "repr(ml)"},
    "[type(x).__name__ for x in ml]", "list(ml.state_dict())",
    "err(lambda: ml.extend(3))",
    "repr(nn.ModuleList())",
    ("ml(torch.ones(2))", "NotImplementedError"),
])
MODULE += block("md = nn.ModuleDict({'b': nn.Linear(2, 2), 'a': nn.ReLU()})", [
    "(list(md.keys()), len(md), 'a' in md, repr(md))", "[type(v).__name__ for v in md.values()]",
    "[k for k, v in md.items()]", "list(md)",
    {"setup": "md['c'] = nn.Tanh()\nmd.update([('d', nn.Sigmoid())])\nmd.update({'e': nn.GELU()})", "expr": "list(md.keys())"},
    {"setup": "p = md.pop('b')", "expr": "(type(p).__name__, list(md))"},
    {"setup": "del md['a']", "expr": "list(md)"},
    {"setup": "md.clear()", "expr": "(len(md), repr(md))"},
    "list(md.state_dict())",
    "err(lambda: md.update([('x',)]))",
    "err(lambda: md.update(3))",
])
MODULE += block("pl = nn.ParameterList([nn.Parameter(torch.randn(2)), torch.ones(3)])", [
    "(len(pl), repr(pl))", "[type(p).__name__ for p in pl]", "pl[1]", "pl[-1].requires_grad",
    NAMES.format("pl.named_parameters()"), "list(pl.state_dict())",
    {"setup": "pl.append(nn.Parameter(torch.zeros(1, dtype=torch.float64)))\npl.extend([torch.zeros(2)])", "expr": "(len(pl), repr(pl))"},
    {"setup": "pl[0] = torch.zeros(5)", "expr": "(type(pl[0]).__name__, pl[0].shape)"},
    "len(pl[0:1])", "err(lambda: pl[5])", "err(lambda: pl(1))", "err(lambda: pl.extend(torch.ones(2)))",
    "repr(nn.ParameterList())",
])
MODULE += block("pd = nn.ParameterDict({'w': nn.Parameter(torch.randn(2)), 'a': torch.ones(1, 3)})", [
    "(len(pd), list(pd.keys()), repr(pd))", "[type(p).__name__ for p in pd.values()]", "pd['w']", "'a' in pd",
    NAMES.format("pd.named_parameters()"), "list(pd.state_dict())",
    {"setup": "from collections import OrderedDict\npd = nn.ParameterDict(OrderedDict([('z', torch.ones(1)), ('b', torch.ones(2))]))", "expr": "list(pd)"},
    {"setup": "pd['n'] = torch.zeros(2)\np = pd.pop('a')", "expr": "(list(pd), type(p).__name__)"},
    {"setup": "pd.update([('q', torch.zeros(1))])", "expr": "list(pd)"},
    {"setup": "pd.clear()", "expr": "(len(pd), repr(pd))"},
    "pd.get('missing', 3)", "list(reversed(pd))", "list(pd.copy())", "list(pd.fromkeys(['x', 'y'], torch.ones(1)))",
    "list(pd | nn.ParameterDict({'c': torch.ones(1)}))",
    {"setup": "pd.setdefault('k', torch.ones(2))", "expr": "list(pd)"},
    "err(lambda: pd[3])", "err(lambda: pd(1))",
])

# ── Parameter ──
MODULE += block("p = nn.Parameter(torch.tensor([[1.5, -2.0], [0.25, 3.0]]))", [
    "repr(p)", "str(p)", "(type(p).__name__, isinstance(p, torch.Tensor), p.requires_grad, p.is_leaf, p.grad_fn is None)",
    "type(p * 2).__name__", "type(p.data).__name__", "type(p.detach()).__name__",
    "(p * 2).requires_grad", "p.data.requires_grad",
    "repr(nn.Parameter(torch.ones(2), requires_grad=False))",
    "nn.Parameter(torch.ones(2), requires_grad=False).requires_grad",
    "(nn.Parameter().shape, repr(nn.Parameter()))",
    {"setup": "import copy\nq = copy.deepcopy(p)", "expr": "(type(q).__name__, q is p, torch.equal(q, p), q.requires_grad, q.data_ptr() != p.data_ptr())"},
    {"setup": "import copy\np.grad = torch.ones(2, 2)\nq = copy.deepcopy(p)", "expr": "q.grad"},
    {"setup": "import pickle\nq = pickle.loads(pickle.dumps(p))", "expr": "(type(q).__name__, q, q.requires_grad)"},
    {"setup": "t = torch.ones(3)\nq = nn.Parameter(t)\nt.add_(1)", "expr": "(q, t.requires_grad)"},
    {"setup": "x = torch.ones(2, requires_grad=True) * 2\nq = nn.Parameter(x)", "expr": "(q.is_leaf, q.grad_fn is None, q.requires_grad)"},
    {"setup": "(p * p).sum().backward()", "expr": "p.grad"},
    {"setup": "q = nn.Parameter(p)", "expr": "(type(q).__name__, q.requires_grad)"},
    {"setup": "m = nn.Linear(2, 2)\nm.weight = p", "expr": "(m.weight is p, list(m.state_dict()))"},
])

# ── hooks ──
HOOKS = MYMODEL + """
events = []
def pre(name):
    def hook(mod, inp):
        events.append(('pre', name, [tuple(t.shape) for t in inp]))
    return hook
def fwd(name):
    def hook(mod, inp, out):
        events.append(('fwd', name, out.detach().clone()))
    return hook
def bwd(name):
    def hook(mod, gin, gout):
        events.append(('bwd', name, [None if g is None else g.clone() for g in gin], [None if g is None else g.clone() for g in gout]))
    return hook
x = torch.randn(2, 4)
"""
MODULE += block(HOOKS, [
    {"setup": "h = m.linear1.register_forward_hook(fwd('l1'))\ny = m(x)", "expr": "events", "atol": 1e-6},
    {"setup": "for n, mod in m.named_modules():\n    mod.register_forward_pre_hook(pre(n))\n    mod.register_forward_hook(fwd(n))\ny = m(x)",
     "expr": "[(e[0], e[1]) for e in events]"},
    {"setup": "h = m.linear1.register_forward_hook(fwd('l1'))\nm(x)\nh.remove()\nm(x)\nh.remove()", "expr": "len(events)"},
    {"setup": "h = m.linear1.register_forward_pre_hook(pre('l1'))\nwith h:\n    m(x)\nm(x)", "expr": "len(events)"},
    {"setup": "m.linear1.register_forward_pre_hook(lambda mod, inp: inp[0] * 0)\ny = m(x)", "expr": "y", "atol": 1e-6},
    {"setup": "m.linear1.register_forward_pre_hook(lambda mod, inp: (inp[0] * 2,))\ny = m(x)", "expr": "y", "atol": 1e-6},
    {"setup": "m.linear2.register_forward_hook(lambda mod, inp, out: out * 0 + 1)\ny = m(x)", "expr": "y"},
    {"setup": "m.linear2.register_forward_hook(lambda mod, inp, out: events.append(inp[0].shape))\ny = m(x)", "expr": "events"},
    {"setup": "h1 = m.register_forward_hook(fwd('a'))\nh2 = m.register_forward_hook(fwd('b'))\nh1.remove()\nm(x)", "expr": "[e[1] for e in events]"},
    {"setup": "h = m.register_forward_hook(fwd('a'))", "expr": "type(h.id).__name__"},
    {"setup": "for n, mod in m.named_modules():\n    mod.register_full_backward_hook(bwd(n))\nm(x).sum().backward()",
     "expr": "events", "atol": 1e-6},
    {"setup": "xg = x.clone().requires_grad_()\nm.linear1.register_full_backward_hook(bwd('l1'))\nm(xg).pow(2).sum().backward()",
     "expr": "(events, xg.grad)", "atol": 1e-6},
    {"setup": "xg = x.clone().requires_grad_()\nm.linear1.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))\nm(xg).sum().backward()",
     "expr": "xg.grad", "atol": 1e-5},
    {"setup": "xg = x.clone().requires_grad_()\nm.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0,))\nm(xg).sum().backward()",
     "expr": "(xg.grad, m.linear1.bias.grad)", "atol": 1e-6},
    {"setup": "xg = x.clone().requires_grad_()\nh = m.linear2.register_full_backward_hook(bwd('l2'))\ny = m(xg)\nh.remove()\ny.sum().backward()\nm(xg).sum().backward()",
     "expr": "len(events)"},
    {"setup": "m.linear1.register_full_backward_hook(bwd('l1'))\nwith torch.no_grad():\n    y = m(x)", "expr": "(events, y.requires_grad)", "atol": 1e-6},
    {"setup": "m.linear2.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))\nxg = x.clone().requires_grad_()",
     "expr": "err(lambda: m(xg).sum().backward())"},
    {"setup": "m.linear1.register_full_backward_hook(lambda mod, gi, go: (torch.ones(2, 4),))",
     "expr": "err(lambda: m(x).sum().backward())"},
    {"setup": """
class Two(nn.Module):
    def forward(self, a, b, k=1.0):
        return a * b * k, a + b
t2 = Two()
t2.register_full_backward_hook(bwd('two'))
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.])
o1, o2 = t2(a, b, k=2.0)
(o1.sum() + 3 * o2.sum()).backward()
o1, o2 = t2(a, b)
o1.sum().backward()
""", "expr": "(events, a.grad)"},
    {"setup": "m.register_forward_pre_hook(lambda mod, inp: None)\nm.register_forward_hook(lambda mod, inp, out: None)\ny = m(x)", "expr": "y", "atol": 1e-6},
])

# ══ init ═════════════════════════════════════════════════════════════════════════════════════════
INIT = []
INIT += [C("nn.init.calculate_gain(%r%s)" % (n, a)) for n, a in [
    ("linear", ""), ("conv2d", ""), ("sigmoid", ""), ("tanh", ""), ("relu", ""), ("leaky_relu", ""),
    ("leaky_relu", ", 0.2"), ("leaky_relu", ", 1"), ("selu", ""), ("conv_transpose1d", "")]]
INIT += [C("nn.init.calculate_gain('leaky_relu', True)", raises=VE),
         C("nn.init.calculate_gain('swish')", raises=VE),
         C("err(lambda: nn.init.calculate_gain('swish'))")]
INIT += [C("nn.init._calculate_fan_in_and_fan_out(torch.empty(%s))" % s) for s in
         ["3, 5", "4, 3, 2, 2", "6, 2, 5", "2, 3, 1, 1, 4"]]
INIT += [C("nn.init._calculate_fan_in_and_fan_out(torch.empty(5))", raises=VE)]
W = "w = torch.empty(%s)\nr = %s"
INIT += [C("(w, r is w)", W % (shape, call), label=call, rtol=rtol, atol=atol) for shape, call, rtol, atol in [
    ("3, 5", "nn.init.uniform_(w)", None, None),
    ("3, 5", "nn.init.uniform_(w, -2.0, 0.5)", None, None),
    ("3, 5", "nn.init.normal_(w)", None, None),
    ("3, 5", "nn.init.normal_(w, 1.0, 0.02)", None, None),
    ("3, 5", "nn.init.constant_(w, 0.3)", None, None),
    ("3, 5", "nn.init.ones_(w)", None, None),
    ("3, 5", "nn.init.zeros_(w)", None, None),
    ("3, 5", "nn.init.eye_(w)", None, None),
    ("5, 3", "nn.init.eye_(w)", None, None),
    ("4, 2, 3", "nn.init.dirac_(w)", None, None),
    ("4, 2, 3, 3", "nn.init.dirac_(w)", None, None),
    ("4, 2, 3, 3", "nn.init.dirac_(w, groups=2)", None, None),
    ("3, 5", "nn.init.xavier_uniform_(w)", None, None),
    ("3, 5", "nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain('relu'))", None, None),
    ("4, 3, 2, 2", "nn.init.xavier_uniform_(w)", None, None),
    ("3, 5", "nn.init.xavier_normal_(w)", None, None),
    ("4, 3, 2, 2", "nn.init.xavier_normal_(w, 2.0)", None, None),
    ("3, 5", "nn.init.kaiming_uniform_(w)", None, None),
    ("3, 5", "nn.init.kaiming_uniform_(w, a=5 ** 0.5)", None, None),
    ("3, 5", "nn.init.kaiming_uniform_(w, mode='fan_out', nonlinearity='relu')", None, None),
    ("4, 3, 2, 2", "nn.init.kaiming_uniform_(w, nonlinearity='tanh')", None, None),
    ("3, 5", "nn.init.kaiming_normal_(w)", None, None),
    ("4, 3, 2, 2", "nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')", None, None),
    ("3, 5", "nn.init.trunc_normal_(w)", 2e-6, 2e-6),
    ("40", "nn.init.trunc_normal_(w, mean=0.5, std=0.2, a=0.3, b=1.0)", 2e-6, 2e-6),
    ("3, 5", "nn.init.trunc_normal_(w, std=0.02)", 2e-6, 2e-6),
    ("3, 5", "nn.init.orthogonal_(w)", 1e-4, 1e-5),
    ("5, 3", "nn.init.orthogonal_(w, gain=2.0)", 1e-4, 1e-5),
    ("4, 2, 3", "nn.init.orthogonal_(w)", 1e-4, 1e-5),
    ("6, 4", "nn.init.sparse_(w, 0.5)", None, None),
    ("3, 5, dtype=torch.float64", "nn.init.uniform_(w)", None, None),
    ("3, 5, dtype=torch.float64", "nn.init.xavier_normal_(w)", None, None),
    ("0, 3", "nn.init.kaiming_uniform_(w)", None, None),
]]
INIT += [
    C("nn.init.kaiming_uniform_(torch.empty(3, 5), mode='fan_avg')", raises=VE),
    C("err(lambda: nn.init.kaiming_uniform_(torch.empty(3, 5), mode='fan_avg'))"),
    C("err(lambda: nn.init.eye_(torch.empty(3)))"),
    C("err(lambda: nn.init.dirac_(torch.empty(3, 3)))"),
    C("err(lambda: nn.init.orthogonal_(torch.empty(3)))"),
    C("(p.requires_grad, p.is_leaf, p.grad_fn is None, p)",
      "p = nn.Parameter(torch.empty(2, 3))\nnn.init.kaiming_normal_(p)", label="init a Parameter"),
    C("(w.requires_grad, w.is_leaf, w)", "w = torch.empty(3, requires_grad=True)\nnn.init.uniform_(w)\nnn.init.normal_(w)\nnn.init.constant_(w, 2.)",
      label="init a leaf that requires grad"),
    C("(a, b)", "a = nn.init.uniform_(torch.empty(4))\nb = nn.init.normal_(torch.empty(4))", label="stream continues"),
    C("w", "import warnings\nwarnings.simplefilter('ignore')\nw = torch.empty(2, 2)\nnn.init.xavier_uniform(w)", label="deprecated xavier_uniform"),
]

# ══ layers: default initialisation, forward, printing ═════════════════════════════════════════════
def layer(ctor, x, call="m(x)", atol=1e-5, extra=""):
    """(repr, state_dict items, output) of a seeded layer on a seeded input."""
    setup = "m = %s\nx = %s\n%s" % (ctor, x, extra)
    return C("(repr(m), list(m.state_dict().items()), %s)" % call, setup, atol=atol, rtol=1e-5,
             label="%s(%s)" % (ctor, x))


X2 = "torch.randn(3, 4)"
X4 = "torch.randn(2, 3, 4, 4)"
X3 = "torch.randn(2, 3, 7)"
LAYERS = []
LAYERS += [layer(c, x) for c, x in [
    ("nn.Identity(54, unused='x')", X2),
    ("nn.Linear(4, 3)", X2),
    ("nn.Linear(4, 3, bias=False)", X2),
    ("nn.Linear(4, 2)", "torch.randn(2, 5, 4)"),
    ("nn.Linear(4, 2)", "torch.randn(4)"),
    ("nn.Linear(4, 2, dtype=torch.float64)", "torch.randn(3, 4, dtype=torch.float64)"),
    ("nn.Conv1d(3, 4, 3)", X3),
    ("nn.Conv1d(3, 6, 2, stride=2, padding=1, dilation=2, groups=3, bias=False)", X3),
    ("nn.Conv1d(3, 2, 3, padding='same')", X3),
    ("nn.Conv1d(3, 2, 3, padding=1, padding_mode='reflect')", X3),
    ("nn.Conv1d(3, 2, 3, padding=1, padding_mode='circular')", X3),
    ("nn.Conv2d(3, 4, 3)", X4),
    ("nn.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=(1, 0))", X4),
    ("nn.Conv2d(3, 6, 3, padding=2, dilation=2, groups=3, bias=False)", X4),
    ("nn.Conv2d(3, 2, 4, padding='same')", X4),
    ("nn.Conv2d(3, 2, 3, padding='valid')", X4),
    ("nn.Conv2d(3, 2, 3, padding=1, padding_mode='replicate')", X4),
    ("nn.Conv2d(3, 2, 3, padding=(1, 2), padding_mode='zeros')", "torch.randn(3, 5, 5)"),
    ("nn.BatchNorm1d(4)", X2),
    ("nn.BatchNorm1d(3)", X3),
    ("nn.BatchNorm1d(4, affine=False, momentum=0.3, eps=1e-3)", X2),
    ("nn.BatchNorm1d(4, momentum=None)", X2),
    ("nn.BatchNorm1d(4, track_running_stats=False)", X2),
    ("nn.BatchNorm2d(3)", X4),
    ("nn.LayerNorm(4)", X2),
    ("nn.LayerNorm([4, 4], elementwise_affine=False, eps=1e-6)", X4),
    ("nn.LayerNorm((3, 7))", X3),
    ("nn.GroupNorm(1, 3)", X4),
    ("nn.GroupNorm(3, 6, eps=1e-3, affine=False)", "torch.randn(2, 6, 4)"),
    ("nn.Dropout(0.0)", X2),
    ("nn.Dropout(1.0)", X2),
    ("nn.Dropout2d(0.0)", X4),
    ("nn.Embedding(10, 3)", "torch.tensor([[1, 2, 4], [4, 3, 9]])"),
    ("nn.Embedding(10, 3, padding_idx=2)", "torch.tensor([[1, 2, 4], [4, 3, 9]])"),
    ("nn.Embedding(10, 3, padding_idx=-1)", "torch.tensor([9, 0])"),
    ("nn.Embedding(5, 2, max_norm=1.0, norm_type=1.5, scale_grad_by_freq=True)", "torch.tensor([1, 2])"),
    ("nn.Embedding.from_pretrained(torch.arange(6.).reshape(3, 2))", "torch.tensor([2, 0])"),
    ("nn.Embedding.from_pretrained(torch.arange(6.).reshape(3, 2), freeze=False, padding_idx=1)", "torch.tensor([2, 0])"),
    ("nn.MaxPool2d(2)", X4),
    ("nn.MaxPool2d(3, stride=2, padding=1)", X4),
    ("nn.MaxPool2d((2, 2), stride=1, dilation=(1, 2), ceil_mode=True)", X4),
    ("nn.MaxPool1d(2)", X3),
    ("nn.AvgPool2d(2)", X4),
    ("nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)", X4),
    ("nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, divisor_override=2)", X4),
    ("nn.AvgPool1d(3, stride=2)", X3),
    ("nn.AdaptiveAvgPool2d(1)", X4),
    ("nn.AdaptiveAvgPool2d((2, 3))", X4),
    ("nn.AdaptiveAvgPool2d((None, 2))", X4),
    ("nn.AdaptiveAvgPool1d(3)", X3),
    ("nn.AdaptiveMaxPool2d((2, 2))", X4),
    ("nn.Flatten()", X4),
    ("nn.Flatten(0, 2)", X4),
    ("nn.Unflatten(1, (2, 2))", X2),
    ("nn.Unflatten(-1, [1, 7])", X3),
]]
LAYERS += [
    layer("nn.MaxPool2d(2, return_indices=True)", X4),
    layer("nn.Bilinear(3, 4, 2)", "torch.randn(5, 3)", call="m(x, torch.randn(5, 4))"),
    layer("nn.Bilinear(3, 4, 2, bias=False)", "torch.randn(2, 5, 3)", call="m(x, torch.randn(2, 5, 4))"),
    layer("nn.GLU()", "torch.randn(3, 4)"),
    layer("nn.BatchNorm1d(4)", X2, call="(m(x), m.running_mean, m.running_var, m.num_batches_tracked)"),
    layer("nn.BatchNorm1d(4, momentum=None)", X2, call="(m(x), m(x * 2), m.running_mean, m.running_var, m.num_batches_tracked)"),
    layer("nn.BatchNorm2d(3, momentum=0.5)", X4, call="(m(x), m(x + 1), m.running_mean, m.running_var, m.num_batches_tracked)"),
    layer("nn.BatchNorm1d(4)", X2, call="(m.eval()(x), m.running_mean, m.num_batches_tracked)"),
    layer("nn.BatchNorm1d(4)", X2, call="m.eval()(x)", extra="m(x * 3 + 1)\nm(x - 2)"),
    layer("nn.BatchNorm2d(3)", X4, call="m.eval()(x)", extra="m(x * 3 + 1)"),
    layer("nn.BatchNorm1d(4, track_running_stats=False)", X2, call="(m.eval()(x), m.running_mean)"),
    layer("nn.Dropout(0.5)", X2, call="(m.eval()(x), m.train()(x).shape)"),
    layer("nn.Dropout2d(0.5)", X4, call="m.eval()(x)"),
    layer("nn.Embedding(10, 3, padding_idx=2)", "torch.tensor([2, 2, 5])", call="(lambda o: (o, torch.autograd.grad(o.sum(), m.weight)))(m(x))"),
]
# Printing of the layers that are not run above.
LAYERS += [C("repr(%s)" % c, label="repr " + c) for c in [
    "nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1)", "nn.Conv2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2), dilation=(3, 1))",
    "nn.Conv2d(4, 4, 3, groups=2, bias=False, padding_mode='circular', padding=1)",
    "nn.Conv2d(2, 2, 3, padding='same')", "nn.Conv1d(2, 2, 3, padding='valid')",
    "nn.BatchNorm1d(num_features=128)", "nn.BatchNorm2d(num_features=64)", "nn.BatchNorm2d(8, momentum=None, affine=False)",
    "nn.LayerNorm(normalized_shape=128)", "nn.GroupNorm(num_groups=8, num_channels=64)",
    "nn.ReLU()", "nn.ReLU(inplace=True)", "nn.GELU()", "nn.GELU(approximate='tanh')", "nn.SiLU()", "nn.SiLU(True)",
    "nn.Dropout(p=0.1)", "nn.Dropout2d()", "nn.Dropout(0.2, inplace=True)",
    "nn.Embedding(num_embeddings=10000, embedding_dim=256)", "nn.Embedding(10, 3, padding_idx=0, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True, sparse=True)",
    "nn.MultiheadAttention(embed_dim=256, num_heads=8)",
    "nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024)",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8))",
    "nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))",
    "nn.LeakyReLU()", "nn.LeakyReLU(0.2, inplace=True)", "nn.ELU()", "nn.ELU(alpha=0.5, inplace=True)", "nn.CELU(2.0)",
    "nn.Hardtanh()", "nn.Hardtanh(-2, 2, True)", "nn.ReLU6()", "nn.ReLU6(inplace=True)", "nn.Sigmoid()", "nn.Tanh()",
    "nn.Softmax(dim=1)", "nn.Softmax()", "nn.LogSoftmax(dim=-1)", "nn.Softmin(0)", "nn.Softmax2d()",
    "nn.Softplus()", "nn.Softplus(beta=2, threshold=10)", "nn.Threshold(0.1, 20)", "nn.Threshold(0.1, 20, inplace=True)",
    "nn.Hardshrink()", "nn.Softshrink(0.3)", "nn.PReLU()", "nn.PReLU(3, init=0.1)", "nn.GLU()", "nn.Mish()",
    "nn.Hardswish()", "nn.Hardsigmoid()", "nn.LogSigmoid()", "nn.Softsign()", "nn.Tanhshrink()", "nn.SELU()", "nn.RReLU()",
    "nn.MaxPool2d(2)", "nn.MaxPool2d((2, 3), stride=(1, 1), padding=1, dilation=2, ceil_mode=True)", "nn.AvgPool2d(2)",
    "nn.AvgPool1d(3)", "nn.AvgPool2d((2, 2), stride=1, padding=(1, 0))", "nn.AdaptiveAvgPool2d((1, 1))", "nn.AdaptiveAvgPool1d(4)",
    "nn.Flatten()", "nn.Unflatten(1, (2, 5))", "nn.Identity()", "nn.Bilinear(2, 3, 4, bias=False)",
    "nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(weight=torch.ones(3), ignore_index=1, reduction='sum', label_smoothing=0.1)",
    "nn.MSELoss()", "nn.L1Loss(reduction='none')", "nn.NLLLoss()", "nn.BCELoss()", "nn.BCEWithLogitsLoss(pos_weight=torch.ones(2))",
    "nn.SmoothL1Loss(beta=0.5)", "nn.HuberLoss(delta=2.0)", "nn.KLDivLoss(reduction='batchmean', log_target=True)",
]]
LAYERS += [
    C("(repr(m), list(m.state_dict()), m.reduction, m.weight)", "import warnings\nwarnings.simplefilter('ignore')\nm = %s" % c, label="loss " + c)
    for c in ["nn.CrossEntropyLoss(weight=torch.tensor([1., 2., 3.]))", "nn.NLLLoss(size_average=False)",
              "nn.BCELoss(weight=torch.ones(2), size_average=True, reduce=False)", "nn.BCEWithLogitsLoss()"]
]
# Activations on values around every kink.
ACT_X = "torch.tensor([[-3.0, -1.0, -0.5, -0.1, 0.0], [0.1, 0.5, 1.0, 2.5, 7.0]])"
LAYERS += [layer(c, ACT_X) for c in [
    "nn.ReLU()", "nn.GELU()", "nn.GELU(approximate='tanh')", "nn.SiLU()", "nn.Tanh()", "nn.Sigmoid()",
    "nn.Softmax(dim=1)", "nn.Softmax(dim=0)", "nn.LogSoftmax(dim=1)", "nn.Softmin(dim=1)", "nn.LeakyReLU()", "nn.LeakyReLU(0.2)",
    "nn.ELU()", "nn.ELU(0.5)", "nn.CELU(1.5)", "nn.SELU()", "nn.Hardtanh()", "nn.Hardtanh(-0.5, 2.0)", "nn.ReLU6()",
    "nn.Softplus()", "nn.Softplus(2, 1)", "nn.Threshold(0.2, -1.0)", "nn.Hardshrink()", "nn.Softshrink()", "nn.PReLU()",
    "nn.GLU(0)", "nn.Mish()", "nn.Hardswish()", "nn.Hardsigmoid()", "nn.LogSigmoid()", "nn.Softsign()", "nn.Tanhshrink()",
]]
LAYERS += [layer("nn.PReLU(3)", "torch.randn(2, 3, 2)"), layer("nn.Softmax2d()", "torch.randn(2, 3, 2, 2)")]
LAYERS += [layer("nn.ReLU(inplace=True)", ACT_X, call="(m(x) is x, x)"),
           layer("nn.RReLU()", ACT_X, call="m.eval()(x)")]
# Losses.
LOGITS = "torch.randn(4, 3, requires_grad=True)"
TGT = "torch.tensor([0, 2, 1, 2])"
LOSS_SETUP = "inp = %s\ntarget = %s"


def loss(ctor, inp, target, extra="", grad=True):
    setup = "m = %s\n%s" % (ctor, LOSS_SETUP % (inp, target))
    call = "(lambda out: (out, torch.autograd.grad(out.sum(), inp)))(m(inp, target))" if grad else "m(inp, target)"
    return C(call, setup + extra, atol=1e-5, rtol=1e-5, label="%s(%s, %s)" % (ctor, inp, target))


LAYERS += [loss(c, i, t) for c, i, t in [
    ("nn.CrossEntropyLoss()", LOGITS, TGT),
    ("nn.CrossEntropyLoss(reduction='sum')", LOGITS, TGT),
    ("nn.CrossEntropyLoss(reduction='none')", LOGITS, TGT),
    ("nn.CrossEntropyLoss(weight=torch.tensor([1., 2., 0.5]))", LOGITS, TGT),
    ("nn.CrossEntropyLoss(ignore_index=2)", LOGITS, TGT),
    ("nn.CrossEntropyLoss(weight=torch.tensor([1., 2., 0.5]), ignore_index=1, reduction='none')", LOGITS, TGT),
    ("nn.CrossEntropyLoss(label_smoothing=0.1)", LOGITS, TGT),
    ("nn.CrossEntropyLoss(label_smoothing=0.2, weight=torch.tensor([1., 2., 0.5]))", LOGITS, TGT),
    ("nn.CrossEntropyLoss()", LOGITS, "torch.softmax(torch.randn(4, 3), 1)"),
    ("nn.CrossEntropyLoss()", "torch.randn(2, 3, 4, requires_grad=True)", "torch.tensor([[0, 1, 2, 1], [2, 2, 0, 1]])"),
    ("nn.NLLLoss()", "torch.log_softmax(torch.randn(4, 3), 1).requires_grad_()", TGT),
    ("nn.NLLLoss(weight=torch.tensor([1., 2., 0.5]), reduction='sum')", "torch.log_softmax(torch.randn(4, 3), 1).requires_grad_()", TGT),
    ("nn.NLLLoss(ignore_index=0)", "torch.log_softmax(torch.randn(4, 3), 1).requires_grad_()", TGT),
    ("nn.MSELoss()", "torch.randn(3, 4, requires_grad=True)", "torch.randn(3, 4)"),
    ("nn.MSELoss(reduction='none')", "torch.randn(3, 4, requires_grad=True)", "torch.randn(3, 4)"),
    ("nn.L1Loss()", "torch.randn(3, 4, requires_grad=True)", "torch.randn(3, 4)"),
    ("nn.L1Loss(reduction='sum')", "torch.randn(3, 4, requires_grad=True)", "torch.randn(3, 4)"),
    ("nn.BCELoss()", "torch.rand(3, 4).requires_grad_()", "torch.rand(3, 4)"),
    ("nn.BCELoss(weight=torch.tensor([1., 2., 3., 4.]), reduction='none')", "torch.rand(3, 4).requires_grad_()", "torch.randint(0, 2, (3, 4)).float()"),
    ("nn.BCEWithLogitsLoss()", "torch.randn(3, 4, requires_grad=True)", "torch.rand(3, 4)"),
    ("nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1., 2., 3., 0.5]))", "torch.randn(3, 4, requires_grad=True)", "torch.rand(3, 4)"),
    ("nn.BCEWithLogitsLoss(weight=torch.tensor([2., 1., 1., 1.]), reduction='sum')", "torch.randn(3, 4, requires_grad=True)", "torch.rand(3, 4)"),
    ("nn.SmoothL1Loss()", "torch.randn(3, 4, requires_grad=True) * 2", "torch.randn(3, 4)"),
    ("nn.SmoothL1Loss(beta=0.5, reduction='none')", "torch.randn(3, 4, requires_grad=True) * 2", "torch.randn(3, 4)"),
    ("nn.HuberLoss()", "torch.randn(3, 4, requires_grad=True) * 2", "torch.randn(3, 4)"),
    ("nn.HuberLoss(delta=0.5, reduction='sum')", "torch.randn(3, 4, requires_grad=True) * 2", "torch.randn(3, 4)"),
    ("nn.KLDivLoss(reduction='batchmean')", "torch.log_softmax(torch.randn(3, 4), 1).requires_grad_()", "torch.softmax(torch.randn(3, 4), 1)"),
    ("nn.KLDivLoss(reduction='sum', log_target=True)", "torch.log_softmax(torch.randn(3, 4), 1).requires_grad_()", "torch.log_softmax(torch.randn(3, 4), 1)"),
    ("nn.KLDivLoss(reduction='none')", "torch.log_softmax(torch.randn(3, 4), 1).requires_grad_()", "torch.softmax(torch.randn(3, 4), 1)"),
]]

# ══ grads: a small model's backward, clipping ═════════════════════════════════════════════════════
SMALL = """
model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 3))
x = torch.randn(6, 4)
y = torch.tensor([0, 1, 2, 1, 0, 2])
loss = nn.CrossEntropyLoss()(model(x), y)
loss.backward()
"""
GRADS = []
GRADS += block(SMALL, [
    "loss",
    "[(n, p.grad) for n, p in model.named_parameters()]",
    "[(n, b) for n, b in model.named_buffers()]",
    {"setup": "norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)",
     "expr": "(norm, [(n, p.grad) for n, p in model.named_parameters()])"},
    {"setup": "norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=100.0)",
     "expr": "(norm, [(n, p.grad) for n, p in model.named_parameters()])"},
    {"setup": "norm = nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type=float('inf'))",
     "expr": "(norm, [(n, p.grad) for n, p in model.named_parameters()])"},
    {"setup": "norm = nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type=1)",
     "expr": "(norm, [(n, p.grad) for n, p in model.named_parameters()])"},
    {"setup": "norm = nn.utils.clip_grad_norm_(model[0].weight, 0.1)", "expr": "(norm, model[0].weight.grad)"},
    {"setup": "norm = torch.nn.utils.clip_grad_norm_(list(model.parameters()), 1.0, 3.0)", "expr": "norm"},
    {"setup": "r = nn.utils.clip_grad_value_(model.parameters(), 0.05)",
     "expr": "(r, [(n, p.grad) for n, p in model.named_parameters()])"},
    {"setup": "model[0].weight.grad[0, 0] = float('nan')",
     "expr": "err(lambda: nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True))"},
    {"setup": "model[0].weight.grad[0, 0] = float('inf')",
     "expr": "nn.utils.clip_grad_norm_(model.parameters(), 1.0)"},
    {"setup": "vec = nn.utils.parameters_to_vector(model.parameters())", "expr": "(vec.shape, vec[:5])"},
    {"setup": "nn.utils.vector_to_parameters(torch.arange(float(sum(p.numel() for p in model.parameters()))), model.parameters())",
     "expr": "[p for p in model.parameters()][-1]"},
], atol=1e-5, rtol=1e-5)
GRADS += [
    C("nn.utils.clip_grad_norm_([nn.Parameter(torch.ones(2))], 1.0)"),
    C("(m.step_count, [(n, p.grad) for n, p in m.named_parameters()])",
      MYMODEL + "out = m(torch.randn(8, 4))\nloss = nn.CrossEntropyLoss()(out, torch.tensor([0, 1, 2, 0, 1, 2, 0, 1]))\nloss.backward()\nloss = nn.CrossEntropyLoss()(m(torch.randn(8, 4)), torch.tensor([2, 1, 2, 0, 1, 2, 0, 1]))\nloss.backward()",
      atol=1e-5, rtol=1e-5, label="MyModel two backward passes accumulate"),
    C("[(n, p.grad) for n, p in m.named_parameters()]",
      MYMODEL + "x = torch.randn(3, 4, dtype=torch.float64)\nm.double()\nm(x).sum().backward()",
      label="MyModel in float64"),
    C("[(n, p.grad) for n, p in m.named_parameters()]",
      "m = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(12, 2))\n"
      "m(torch.randn(2, 2, 4, 4)).pow(2).sum().backward()", atol=1e-4, rtol=1e-4, label="conv net grads"),
    C("[(n, p.grad) for n, p in m.named_parameters()]",
      "m = nn.Sequential(nn.Embedding(6, 4, padding_idx=0), nn.GroupNorm(3, 3), nn.SiLU(), nn.Flatten(), nn.Linear(12, 2))\n"
      "m(torch.tensor([[0, 1, 2], [3, 0, 5]])).pow(2).sum().backward()", atol=1e-5, rtol=1e-5, label="embedding net grads"),
]

# ══ transformer: MultiheadAttention, TransformerEncoderLayer, TransformerEncoder ═════════════════
TRANSFORMER = []


def tcase(setup, expr, atol=1e-5, label=None):
    lines = setup.strip().splitlines()
    return C(expr, setup, atol=atol, rtol=1e-4,
             label=label or "%s; %s -> %s" % (lines[0], lines[-1].strip(), expr))


MHA_OUT = "(list(m.state_dict().items()), out)"
TRANSFORMER += [
    tcase("m = nn.MultiheadAttention(8, 2)\nq = torch.randn(5, 3, 8)\nout = m(q, q, q)", MHA_OUT),
    tcase("m = nn.MultiheadAttention(8, 2, batch_first=True)\nq = torch.randn(3, 5, 8)\nout = m(q, q, q)", MHA_OUT),
    tcase("m = nn.MultiheadAttention(8, 4)\nq = torch.randn(4, 2, 8)\nk = torch.randn(6, 2, 8)\nout = m(q, k, k)", "out"),
    tcase("m = nn.MultiheadAttention(8, 4)\nq = torch.randn(4, 2, 8)\nk = torch.randn(6, 2, 8)\nv = torch.randn(6, 2, 8)\nout = m(q, k, v, average_attn_weights=False)", "out"),
    tcase("m = nn.MultiheadAttention(8, 2)\nq = torch.randn(4, 8)\nout = m(q, q, q)", "out", label="MHA unbatched"),
    tcase("m = nn.MultiheadAttention(8, 2, bias=False)\nq = torch.randn(4, 2, 8)\nout = m(q, q, q, need_weights=False)", "out"),
    tcase("m = nn.MultiheadAttention(8, 2, kdim=3, vdim=5)\nq = torch.randn(4, 2, 8)\nout = m(q, torch.randn(6, 2, 3), torch.randn(6, 2, 5))", "out"),
    tcase("m = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True)\nq = torch.randn(4, 2, 8)\nout = m(q, q, q)", "out"),
    tcase("m = nn.MultiheadAttention(8, 2, batch_first=True)\nq = torch.randn(2, 4, 8)\nkpm = torch.tensor([[False, False, True, True], [False, False, False, True]])\nout = m(q, q, q, key_padding_mask=kpm)", "out"),
    tcase("m = nn.MultiheadAttention(8, 2)\nq = torch.randn(4, 2, 8)\nmask = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)\nout = m(q, q, q, attn_mask=mask)", "out"),
    tcase("m = nn.MultiheadAttention(8, 2)\nq = torch.randn(4, 2, 8)\nmask = torch.triu(torch.full((4, 4), float('-inf')), 1)\nkpm = torch.tensor([[False, False, False, True], [False, False, False, False]])\nout = m(q, q, q, attn_mask=mask, key_padding_mask=kpm)", "out"),
    tcase("m = nn.MultiheadAttention(8, 2)\nq = torch.randn(4, 2, 8)\nkpm = torch.tensor([[0., 0., 0., -1e9], [0., 0.5, 0., 0.]])\nout = m(q, q, q, key_padding_mask=kpm)", "out", label="MHA float key_padding_mask"),
    tcase("m = nn.MultiheadAttention(8, 2)\nq = torch.randn(4, 2, 8)\nmask = torch.randn(4, 4, 4)\nkpm = torch.tensor([[False, True, False, False], [False, False, False, False]])\nout = m(q, q, q, attn_mask=mask, key_padding_mask=kpm)", "out"),
    tcase("m = nn.MultiheadAttention(8, 2, batch_first=True)\nm.eval()\nq = torch.randn(2, 4, 8)\nwith torch.no_grad():\n    out = m(q, q, q)", "out", label="MHA eval no_grad (PyTorch's fast path)"),
    tcase("m = nn.MultiheadAttention(8, 2, dropout=0.5)\nm.eval()\nq = torch.randn(4, 2, 8)\nout = m(q, q, q)", "out"),
    tcase("m = nn.MultiheadAttention(8, 2)\nq = torch.randn(4, 2, 8, requires_grad=True)\nout = m(q, q, q)\nout[0].pow(2).sum().backward()",
          "[(n, p.grad) for n, p in m.named_parameters()] + [q.grad]", label="MHA backward"),
    C("(repr(m), [(n, tuple(p.shape)) for n, p in m.named_parameters()])", "m = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)"),
    C("err(lambda: nn.MultiheadAttention(8, 3))"),
    C("err(lambda: m(q, q, q, attn_mask=torch.zeros(3, 3, dtype=torch.bool)))", "m = nn.MultiheadAttention(8, 2)\nq = torch.randn(4, 2, 8)"),
]
ENC = "layer = nn.TransformerEncoderLayer(%s)\nsrc = torch.randn(%s)\n"
TRANSFORMER += [
    tcase(ENC % ("8, 2, 16, dropout=0.0", "5, 3, 8") + "out = layer(src)", "(list(layer.state_dict().items()), out)"),
    tcase(ENC % ("8, 2, 16, dropout=0.0, batch_first=True, norm_first=True", "3, 5, 8") + "out = layer(src)", "(list(layer.state_dict().items()), out)"),
    tcase(ENC % ("8, 2, 16, dropout=0.0, activation='gelu'", "5, 3, 8") + "out = layer(src)", "out"),
    tcase(ENC % ("8, 2, 16, dropout=0.0, activation=torch.tanh, layer_norm_eps=1e-3", "5, 3, 8") + "out = layer(src)", "(out, layer.activation_relu_or_gelu)"),
    tcase(ENC % ("8, 2, 16", "5, 3, 8") + "layer.eval()\nout = layer(src)", "out", label="encoder layer eval"),
    tcase(ENC % ("8, 2, 16, batch_first=True", "3, 5, 8") + "layer.eval()\nwith torch.no_grad():\n    out = layer(src)", "out", label="encoder layer eval no_grad (fast path)"),
    tcase(ENC % ("8, 2, 16, batch_first=True", "2, 4, 8") + "layer.eval()\nkpm = torch.tensor([[False, False, False, True], [False, False, False, False]])\nwith torch.no_grad():\n    out = layer(src, src_key_padding_mask=kpm)", "out", label="encoder layer fast path with padding mask"),
    tcase(ENC % ("8, 2, 16, dropout=0.0", "5, 3, 8") + "mask = torch.triu(torch.full((5, 5), float('-inf')), 1)\nout = layer(src, src_mask=mask)", "out"),
    tcase(ENC % ("8, 2, 16, dropout=0.0", "4, 2, 8") + "out = layer(src)\nout.pow(2).sum().backward()", "[(n, p.grad) for n, p in layer.named_parameters()]", atol=1e-4, label="encoder layer backward"),
    C("(repr(layer), [n for n, _ in layer.named_parameters()], list(layer.state_dict()), dict(layer.state_dict()._metadata))", ENC % ("8, 2, 16", "1")),
    tcase(ENC % ("8, 2, 16, dropout=0.0", "5, 3, 8") + "enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))\nout = enc(src)",
          "(list(enc.state_dict()), enc.layers[1].state_dict()['linear2.bias'], out, enc.layers[0].linear1.weight is enc.layers[1].linear1.weight, layer.linear1.weight is enc.layers[0].linear1.weight)"),
    tcase(ENC % ("8, 2, 16, batch_first=True", "2, 5, 8") + "enc = nn.TransformerEncoder(layer, 2)\nenc.eval()\nkpm = torch.tensor([[False, False, False, True, True], [False, False, False, False, True]])\nout = enc(src, src_key_padding_mask=kpm)",
          "out", label="encoder eval with padding mask, grad enabled"),
    tcase(ENC % ("8, 2, 16, batch_first=True", "2, 5, 8") + "enc = nn.TransformerEncoder(layer, 2)\nenc.eval()\nkpm = torch.tensor([[False, False, False, True, True], [False, False, False, False, True]])\nwith torch.no_grad():\n    out = enc(src, src_key_padding_mask=kpm)",
          "out", label="encoder nested-tensor fast path"),
    tcase(ENC % ("8, 2, 16, batch_first=True", "2, 5, 8") + "enc = nn.TransformerEncoder(layer, 2)\nenc.eval()\nkpm = torch.tensor([[False, True, False, True, True], [False, False, False, False, True]])\nwith torch.no_grad():\n    out = enc(src, src_key_padding_mask=kpm)",
          "out", label="encoder not left-aligned padding"),
    tcase(ENC % ("8, 2, 16, batch_first=True", "2, 5, 8") + "enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)\nenc.eval()\nkpm = torch.tensor([[False, False, False, True, True], [False, False, False, False, True]])\nwith torch.no_grad():\n    out = enc(src, src_key_padding_mask=kpm)",
          "out", label="encoder no nested tensor"),
    tcase(ENC % ("8, 2, 16, dropout=0.0", "4, 2, 8") + "enc = nn.TransformerEncoder(layer, 2)\nmask = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)\nout = enc(src, mask=mask)\nout.sum().backward()",
          "(out, [(n, p.grad) for n, p in enc.named_parameters() if n.startswith('layers.0.self_attn')])", atol=1e-4),
]


# ── appended cases (keep the ids above stable) ──
MODULE += block(MYMODEL, [
    "(m._version, nn.Linear._version, nn.BatchNorm1d._version, nn.BatchNorm2d(2)._version)",
    {"setup": "import warnings\nwarnings.simplefilter('ignore')\nsd = m.state_dict(None, 'p.')", "expr": "(list(sd), list(sd._metadata))"},
    {"setup": "d = {}\nr = m.state_dict(destination=d)", "expr": "(r is d, list(d), hasattr(d, '_metadata'))"},
    {"setup": "events = []\nh = nn.modules.module.register_module_forward_hook(lambda mod, i, o: events.append(type(mod).__name__))\n"
              "m(torch.randn(2, 4))\nh.remove()\nm(torch.randn(2, 4))", "expr": "events"},
    {"setup": "events = []\nh = nn.modules.module.register_module_forward_pre_hook(lambda mod, i: events.append(type(mod).__name__))\n"
              "m(torch.randn(2, 4))\nh.remove()\nm(torch.randn(2, 4))", "expr": "events"},
    "err(lambda: nn.Module()(torch.ones(1)))",
    ("nn.Module()(torch.ones(1))", "NotImplementedError"),
    {"setup": "m.register_forward_hook(lambda mod, i, o: o * 2)\nout = m(x=torch.ones(1, 4))", "expr": "out", "atol": 1e-6},
])
MODULE += block("""
class Custom(nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 3
        self.inner = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU(), nn.Identity()))
    def extra_repr(self):
        return 'k={}\\nsecond line'.format(self.k)
class OneLine(nn.Module):
    def extra_repr(self):
        return 'only=1'
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
    def forward(self, x, scale=1.0, *, shift=0.0):
        return self.lin(x) * scale + shift
""", [
    "repr(Custom())", "repr(OneLine())", "repr(nn.Module())", "repr(nn.Sequential(OneLine(), Custom()))",
    "repr(nn.ModuleDict({'a': Custom()}))",
    {"setup": "s = Scaled()\nseen = []\ns.register_forward_pre_hook(lambda mod, i: seen.append(len(i)))\nout = s(torch.ones(1, 2), 2.0, shift=1.0)",
     "expr": "(out, seen)", "atol": 1e-6},
    {"setup": "s = Scaled()\nx = torch.ones(1, 2, requires_grad=True)\ns.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 2, None))\nout = s(x, 3.0, shift=1.0)\nout.sum().backward()",
     "expr": "x.grad", "atol": 1e-6},
])
LAYERS += [
    layer("nn.Dropout(0.5)", X2, call="m(x)"),
    layer("nn.Dropout(0.3)", X2, call="(m(x), m(x))"),
    layer("nn.Dropout(0.2, inplace=True)", X2, call="(m(x) is x, x)"),
    layer("nn.Dropout2d(0.5)", X4, call="m(x)"),
    layer("nn.Dropout1d(0.5)", X3, call="m(x)"),
    layer("nn.Sequential(nn.Linear(4, 6), nn.Dropout(0.5), nn.ReLU(), nn.Linear(6, 2))", X2,
          call="(lambda o: (o, torch.autograd.grad(o.sum(), m[0].weight)))(m(x))"),
]
TRANSFORMER += [
    tcase("m = nn.MultiheadAttention(8, 2, dropout=0.5)\nq = torch.randn(4, 2, 8)\nout = m(q, q, q)", "out", label="MHA dropout in training"),
    tcase(ENC % ("8, 2, 16", "5, 3, 8") + "out = layer(src)", "out", label="encoder layer training with dropout 0.1"),
    tcase(ENC % ("8, 2, 16, dropout=0.3, norm_first=True, activation='gelu'", "5, 3, 8") + "out = layer(src)\nout.sum().backward()",
          "(out, layer.linear1.weight.grad)", atol=1e-4, label="encoder layer norm_first dropout backward"),
    tcase(ENC % ("8, 2, 16, dropout=0.2, batch_first=True", "2, 4, 8") + "enc = nn.TransformerEncoder(layer, 3)\nout = enc(src)",
          "out", label="encoder training with dropout"),
]

XS = "torch.randn(1, 3, 3, 3)"
XS3 = "torch.randn(1, 3, 5)"
LAYERS += [layer(c, x) for c, x in [
    ("nn.ConvTranspose1d(3, 2, 3)", XS3),
    ("nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1, groups=1, dilation=1)", XS3),
    ("nn.ConvTranspose2d(3, 4, 3)", XS),
    ("nn.ConvTranspose2d(3, 6, (3, 2), stride=(2, 1), padding=(1, 0), output_padding=(1, 0), groups=3, bias=False)", XS),
    ("nn.ConvTranspose2d(3, 2, 3, stride=2, dilation=2)", XS),
    ("nn.ZeroPad2d(1)", XS), ("nn.ZeroPad2d((1, 0, 2, 1))", XS), ("nn.ConstantPad1d((2, 1), 3.5)", XS3),
    ("nn.ConstantPad2d(1, -1.0)", XS), ("nn.ReflectionPad1d(2)", XS3), ("nn.ReflectionPad2d((1, 2, 0, 1))", XS),
    ("nn.ReplicationPad1d((0, 3))", XS3), ("nn.ReplicationPad2d(2)", XS),
    ("nn.Upsample(scale_factor=2)", XS), ("nn.Upsample(size=(7, 3), mode='nearest')", XS),
    ("nn.Upsample(scale_factor=2, mode='bilinear', align_corners=False)", XS),
    ("nn.Upsample(scale_factor=(1.5, 2), mode='bilinear', align_corners=True)", XS),
    ("nn.Upsample(scale_factor=3, mode='linear')", XS3),
]]
LAYERS += [
    layer("nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)", XS, call="(m(x, output_size=[6, 6]), m(x, output_size=(1, 2, 5, 5)).shape)"),
    C("err(lambda: m(x, output_size=[8, 8]))", "m = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)\nx = torch.randn(1, 3, 3, 3)"),
    C("err(lambda: nn.ConvTranspose2d(3, 2, 3, padding_mode='reflect'))"),
    layer("nn.PairwiseDistance()", X2, call="m(x, torch.randn(3, 4))"),
    layer("nn.PairwiseDistance(p=1.0, keepdim=True)", X2, call="m(x, torch.randn(3, 4))"),
    layer("nn.CosineSimilarity()", X2, call="m(x, torch.randn(3, 4))"),
    layer("nn.CosineSimilarity(dim=0, eps=1e-6)", X2, call="m(x, torch.randn(3, 4))"),
    layer("nn.CosineEmbeddingLoss(margin=0.2)", X2, call="m(x, torch.randn(3, 4), torch.tensor([1, -1, 1]))"),
    layer("nn.MarginRankingLoss(margin=0.5, reduction='none')", "torch.randn(5)", call="m(x, torch.randn(5), torch.tensor([1, -1, 1, 1, -1]))"),
    layer("nn.TripletMarginLoss()", X2, call="m(x, torch.randn(3, 4), torch.randn(3, 4))"),
    layer("nn.TripletMarginLoss(margin=2.0, p=1.0, swap=True, reduction='sum')", X2, call="m(x, torch.randn(3, 4), torch.randn(3, 4))"),
]
LAYERS += [C("repr(%s)" % c, label="repr " + c) for c in [
    "nn.ConvTranspose2d(16, 33, (3, 5), stride=(2, 1), padding=(4, 2), output_padding=(1, 0), dilation=2, groups=1, bias=False)",
    "nn.ConvTranspose1d(2, 4, 3, groups=2)", "nn.Upsample(size=4)", "nn.Upsample(scale_factor=(2, 3), mode='bicubic')",
    "nn.ReflectionPad2d(3)", "nn.ReplicationPad1d(1)", "nn.ConstantPad2d((1, 2, 3, 4), 0.5)", "nn.ZeroPad2d(2)",
    "nn.PairwiseDistance()", "nn.CosineSimilarity()", "nn.TripletMarginLoss()", "nn.MarginRankingLoss()",
]]
MODULE += block("""
class WithState(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.note = {'steps': 3}
    def get_extra_state(self):
        return self.note
    def set_extra_state(self, state):
        self.note = dict(state, loaded=True)
m = WithState()
""", [
    "list(m.state_dict().keys())", "m.state_dict()['_extra_state']",
    {"setup": "m2 = WithState()\nr = m2.load_state_dict(m.state_dict())", "expr": "(repr(r), m2.note)"},
    {"setup": "sd = m.state_dict()\ndel sd['_extra_state']\nr = WithState().load_state_dict(sd, strict=False)", "expr": "repr(r)"},
    {"setup": "sd = nn.Linear(2, 2).state_dict()\nsd['_extra_state'] = 1", "expr": "err(lambda: nn.Linear(2, 2).load_state_dict(sd))"},
])

TRANSFORMER += [
    tcase("m = nn.MultiheadAttention(8, 2, batch_first=True)\nm.eval()\nq = torch.randn(2, 4, 8)\n"
          "kpm = torch.tensor([[False, False, True, True], [False, False, False, True]])\nwith torch.no_grad():\n"
          "    out = m(q, q, q, key_padding_mask=kpm, average_attn_weights=False)", "out",
          label="MHA fast path with key_padding_mask, weights per head"),
    tcase("m = nn.MultiheadAttention(8, 2, batch_first=True)\nq = torch.randn(2, 4, 8)\n"
          "kpm = torch.tensor([[False, False, True, True], [True, True, True, True]])\nout = m(q, q, q, key_padding_mask=kpm)",
          "out", label="MHA fully masked row gives nan"),
]

LAYERS += [
    layer("nn.AlphaDropout(0.3)", X2, call="(m(x), m.eval()(x))"),
    layer("nn.FeatureAlphaDropout(0.5)", X4, call="(m(x), m.eval()(x))"),
    layer("nn.AlphaDropout(0.2)", X2, call="(lambda o: (o, torch.autograd.grad(o.sum(), x)))(m(x.requires_grad_()))"),
    C("(repr(nn.AlphaDropout(0.1)), repr(nn.FeatureAlphaDropout()), repr(nn.Dropout1d(0.3)), repr(nn.Dropout3d()))"),
]

# ── TransformerDecoderLayer, TransformerDecoder, Transformer ──
DEC = "layer = nn.TransformerDecoderLayer(%s)\ntgt = torch.randn(%s)\nmemory = torch.randn(%s)\n"
DEC_SD = "(list(layer.state_dict().items()), out)"
TMASK = "tgt_mask = torch.triu(torch.full((4, 4), float('-inf')), 1)\n"
TRANSFORMER += [
    tcase(DEC % ("8, 2, 16, dropout=0.0", "4, 3, 8", "6, 3, 8") + "out = layer(tgt, memory)", DEC_SD,
          label="decoder layer default init and forward"),
    tcase(DEC % ("8, 2, 16, dropout=0.0, batch_first=True, norm_first=True", "3, 4, 8", "3, 6, 8") + "out = layer(tgt, memory)", DEC_SD,
          label="decoder layer batch_first norm_first"),
    tcase(DEC % ("8, 2, 16, dropout=0.0, activation='gelu', layer_norm_eps=1e-3", "4, 3, 8", "6, 3, 8") + "out = layer(tgt, memory)", "out"),
    tcase(DEC % ("8, 2, 16, dropout=0.0, activation=torch.tanh", "4, 3, 8", "6, 3, 8") + "out = layer(tgt, memory)", "out"),
    tcase(DEC % ("8, 2, 16, dropout=0.0, activation=nn.SiLU()", "4, 8", "6, 8") + "out = layer(tgt, memory)", "out",
          label="decoder layer unbatched, module activation"),
    tcase(DEC % ("8, 2, 16", "4, 3, 8", "6, 3, 8") + "layer.eval()\nout = layer(tgt, memory)", "out", label="decoder layer eval"),
    tcase(DEC % ("8, 2, 16", "4, 3, 8", "6, 3, 8") + "out = layer(tgt, memory)", "out", label="decoder layer training with dropout 0.1"),
    tcase(DEC % ("8, 2, 16, dropout=0.0", "4, 2, 8", "6, 2, 8") + TMASK +
          "mm = torch.zeros(4, 6, dtype=torch.bool)\nmm[:, 5] = True\n"
          "tkpm = torch.tensor([[False, False, False, True], [False, False, False, False]])\n"
          "mkpm = torch.tensor([[False, False, False, False, True, True], [False] * 6])\n"
          "out = layer(tgt, memory, tgt_mask=tgt_mask, memory_mask=mm, tgt_key_padding_mask=tkpm, memory_key_padding_mask=mkpm)",
          "out", label="decoder layer with every mask"),
    tcase(DEC % ("8, 2, 16, batch_first=True", "2, 4, 8", "2, 6, 8") + TMASK +
          "layer.eval()\nmkpm = torch.tensor([[False, False, False, False, True, True], [False] * 6])\n"
          "with torch.no_grad():\n    out = layer(tgt, memory, tgt_mask=tgt_mask, memory_key_padding_mask=mkpm)",
          "out", label="decoder layer eval no_grad with masks"),
    tcase(DEC % ("8, 2, 16, dropout=0.0", "4, 2, 8", "6, 2, 8") + "memory.requires_grad_()\n" + TMASK +
          "out = layer(tgt, memory, tgt_mask=tgt_mask)\nout.pow(2).sum().backward()",
          "[(n, p.grad) for n, p in layer.named_parameters()] + [memory.grad]", atol=1e-4, label="decoder layer backward"),
    tcase(DEC % ("8, 2, 16, dropout=0.3, norm_first=True, activation='gelu'", "4, 2, 8", "6, 2, 8") +
          "out = layer(tgt, memory)\nout.sum().backward()", "(out, layer.linear1.weight.grad, layer.multihead_attn.in_proj_weight.grad)",
          atol=1e-4, label="decoder layer norm_first dropout backward"),
    C("(repr(layer), [n for n, _ in layer.named_parameters()], list(layer.state_dict()), dict(layer.state_dict()._metadata))",
      DEC % ("8, 2, 16", "1", "1"), label="decoder layer repr, names, metadata"),
    C("err(lambda: nn.TransformerDecoderLayer(8, 2, activation='tanh'))"),
    C("err(lambda: layer(tgt, memory, tgt_key_padding_mask=torch.zeros(3, 4, dtype=torch.long)))", DEC % ("8, 2, 16", "4, 3, 8", "6, 3, 8"),
      label="decoder layer integer padding mask"),
    tcase(DEC % ("8, 2, 16, dropout=0.0", "4, 3, 8", "6, 3, 8") + "dec = nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(8))\n" + TMASK +
          "out = dec(tgt, memory, tgt_mask=tgt_mask)",
          "(list(dec.state_dict()), dec.layers[1].state_dict()['norm3.weight'], out, dec.layers[0].linear1.weight is dec.layers[1].linear1.weight, "
          "layer.linear1.weight is dec.layers[0].linear1.weight, dec.num_layers)", label="decoder stack"),
    tcase(DEC % ("8, 2, 16, batch_first=True", "2, 4, 8", "2, 6, 8") + "dec = nn.TransformerDecoder(layer, 3)\nout = dec(tgt, memory)",
          "out", label="decoder stack training with dropout"),
    tcase(DEC % ("8, 2, 16, dropout=0.0", "4, 2, 8", "6, 2, 8") + "dec = nn.TransformerDecoder(layer, 2)\n" +
          "mkpm = torch.tensor([[False, False, False, True, True, True], [False] * 6])\n"
          "out = dec(tgt, memory, memory_key_padding_mask=mkpm)\nout.pow(2).mean().backward()",
          "(out, [(n, p.grad) for n, p in dec.named_parameters() if n.startswith('layers.1.multihead_attn')])", atol=1e-4,
          label="decoder stack backward"),
    C("repr(nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8)))"),
]
TF = "m = nn.Transformer(%s)\nsrc = torch.randn(%s)\ntgt = torch.randn(%s)\n"
TF_SMALL = "d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16"
TRANSFORMER += [
    tcase(TF % (TF_SMALL + ", dropout=0.0", "5, 3, 8", "4, 3, 8") + "out = m(src, tgt)",
          "(list(m.state_dict().items()), out)", label="Transformer default init (xavier) and forward"),
    tcase(TF % (TF_SMALL, "5, 3, 8", "4, 3, 8") + "mask = m.generate_square_subsequent_mask(4)\nout = m(src, tgt, tgt_mask=mask)",
          "(mask, out)", label="Transformer training with dropout and a causal mask"),
    tcase(TF % (TF_SMALL + ", batch_first=True, norm_first=True, activation='gelu'", "2, 5, 8", "2, 4, 8") +
          "m.eval()\nskpm = torch.tensor([[False] * 5, [False, False, False, True, True]])\n"
          "out = m(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4), src_key_padding_mask=skpm, memory_key_padding_mask=skpm)",
          "out", label="Transformer eval with padding masks"),
    tcase(TF % (TF_SMALL + ", batch_first=True", "2, 5, 8", "2, 4, 8") +
          "m.eval()\nskpm = torch.tensor([[False, False, False, True, True], [False, False, False, False, True]])\n"
          "with torch.no_grad():\n    out = m(src, tgt, src_key_padding_mask=skpm)",
          "out", label="Transformer eval no_grad: encoder's nested-tensor path"),
    tcase(TF % (TF_SMALL + ", dropout=0.0", "5, 2, 8", "4, 2, 8") +
          "out = m(src, tgt, tgt_mask=m.generate_square_subsequent_mask(4))\nout.pow(2).sum().backward()",
          "[(n, p.grad) for n, p in m.named_parameters() if '.0.' in n or 'norm.' in n]", atol=1e-4, label="Transformer backward"),
    tcase(TF % (TF_SMALL + ", dtype=torch.float64, dropout=0.0", "5, 8, dtype=torch.float64", "4, 8, dtype=torch.float64") + "out = m(src, tgt)",
          "(out, m.encoder.layers[0].linear1.weight.dtype)", label="Transformer float64 unbatched"),
    C("(repr(m), [n for n, _ in m.named_parameters()][:12], len(m.state_dict()), m.d_model, m.nhead, m.batch_first)",
      "m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16)",
      label="Transformer repr and names"),
    C("(repr(m), list(m.state_dict().items()))",
      "enc = nn.Linear(8, 8)\nm = nn.Transformer(d_model=8, nhead=2, num_decoder_layers=1, dim_feedforward=4, custom_encoder=nn.Identity(), custom_decoder=nn.Bilinear(8, 8, 8))",
      atol=1e-5, rtol=1e-5, label="Transformer custom encoder and decoder are re-initialised"),
    C("(err(lambda: m(torch.randn(5, 3, 8), torch.randn(4, 2, 8))), err(lambda: m(torch.randn(5, 3, 8), torch.randn(4, 3, 6))), "
      "err(lambda: m(torch.randn(5, 3, 6), torch.randn(4, 3, 8))))",
      "m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)",
      label="Transformer shape errors"),
    C("err(lambda: nn.Transformer(d_model=8, nhead=3))"),
    C("nn.Transformer.generate_square_subsequent_mask(3)"),
]

# ── SyncBatchNorm (construction and convert_sync_batchnorm; its forward needs a GPU in 1.13) ──
LAYERS += [
    C("(repr(m), list(m.state_dict().items()), m.process_group, m.training)", "m = nn.SyncBatchNorm(4)", label="SyncBatchNorm default"),
    C("(repr(m), list(m.state_dict().items()))", "m = nn.SyncBatchNorm(3, eps=1e-3, momentum=None, affine=False, track_running_stats=False)",
      label="SyncBatchNorm options"),
    C("(repr(m), list(m.state_dict().items()))", "m = nn.SyncBatchNorm(2, dtype=torch.float64)", label="SyncBatchNorm float64"),
    C("(repr(c), [type(x).__name__ for x in c.modules()], list(c.state_dict().items()), c[1].weight is w, c[1].running_mean is rm, "
      "c[1].num_batches_tracked is bn.num_batches_tracked, c[1].training, c[0] is m[0], c is m, c[4][0].process_group)",
      "m = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3, momentum=0.2), nn.ReLU(), nn.Flatten(), nn.Sequential(nn.BatchNorm1d(27, affine=False)))\n"
      "m(torch.randn(4, 2, 5, 5))\nbn = m[1]\nw, rm = bn.weight, bn.running_mean\nm.eval()\nc = nn.SyncBatchNorm.convert_sync_batchnorm(m)",
      atol=1e-5, rtol=1e-5, label="convert_sync_batchnorm of a model"),
    C("(type(c).__name__, c is bn, c.weight is bn.weight, list(c.state_dict().items()), c.eps, c.momentum)",
      "bn = nn.BatchNorm1d(3, eps=1e-3, momentum=None)\nbn.weight.data.fill_(2.)\nc = nn.SyncBatchNorm.convert_sync_batchnorm(bn)",
      label="convert_sync_batchnorm of a BatchNorm"),
    C("(type(c).__name__, c is s, c.process_group)",
      "s = nn.SyncBatchNorm(3)\nc = nn.SyncBatchNorm.convert_sync_batchnorm(s)", label="convert_sync_batchnorm of a SyncBatchNorm"),
    C("(nn.SyncBatchNorm._version, list(nn.SyncBatchNorm(2).state_dict()._metadata.items()))"),
]

def _cases_from(file_name):
    """The cases of a sibling file cases_<name>.py (its cases(C))."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), file_name)
    spec = importlib.util.spec_from_file_location("golden_nn_" + file_name[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.cases(C)


GROUPS = {
    "module": MODULE,
    "init": INIT,
    "layers": LAYERS,
    "grads": GRADS,
    "transformer": TRANSFORMER,
    "rnn": _cases_from("cases_rnn.py"),
    "more_layers": _cases_from("cases_more_layers.py"),
}
