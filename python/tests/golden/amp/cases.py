"""Autocast cases shared by generate.py (PyTorch 1.13) and test_amp.py (ember): each expression's
result dtype inside torch.autocast("cpu", dtype=torch.bfloat16), and outside it."""
import importlib

EXPRS = [
    "a @ b", "torch.mm(a, b)", "torch.matmul(a, b)", "torch.addmm(c, a, b)", "torch.bmm(a3, b3)",
    "F.linear(a, b)", "F.conv2d(x, w)", "torch.relu(a)", "a + b", "a * 2", "torch.softmax(a, 1)",
    "torch.log_softmax(a, 1)", "a.sum()", "a.exp()", "F.cross_entropy(a, t)", "F.mse_loss(a, b)",
    "F.layer_norm(a, (4,))", "F.gelu(a)", "torch.cat([a, a.bfloat16()])", "(a @ b) + a",
    "torch.stack([a, b])", "F.max_pool2d(x, 2)",
]


def run(torch):
    F = importlib.import_module(torch.__name__ + ".nn.functional")
    torch.manual_seed(0)
    ns = dict(torch=torch, F=F, a=torch.randn(4, 4), b=torch.randn(4, 4), c=torch.randn(4),
              a3=torch.randn(2, 4, 4), b3=torch.randn(2, 4, 4), x=torch.randn(1, 2, 6, 6),
              w=torch.randn(3, 2, 3, 3), t=torch.tensor([0, 1, 2, 3]))
    out = {}
    for e in EXPRS:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            inside = str(eval(e, ns).dtype).replace("torch.", "")
        outside = str(eval(e, ns).dtype).replace("torch.", "")
        out[e] = [inside, outside]
    return out
