# The reference's autograd section, as a PyTorch user writes it (see reference_tensors.py).
import torch

x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
a = x * y
b = a + x
c = b ** 2
print(a.grad_fn.__class__.__name__, b.grad_fn.__class__.__name__, c.grad_fn.__class__.__name__)
print(c)
c.backward()
print(x.grad)
print(y.grad)
try:
    c.backward()
except RuntimeError as e:
    print("RuntimeError:", "second time" in str(e))

x = torch.tensor(2.0, requires_grad=True)
c = (x * 3) ** 2
c.backward(retain_graph=True)
c.backward()
print(x.grad)  # accumulated: 36 + 36
x.grad.zero_()
print(x.grad)

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x * 2
print(x.is_leaf, y.is_leaf, y.requires_grad)
y.retain_grad()
y.sum().backward()
print(x.grad, y.grad)

w = torch.randn(3, 2, requires_grad=True)
inp = torch.randn(4, 3)
with torch.no_grad():
    out = inp @ w
    print(out.requires_grad)
    w -= 0.1 * torch.ones_like(w)
print(w.requires_grad, w.is_leaf)
with torch.inference_mode():
    out = inp @ w
print(out.requires_grad, out.is_inference())
z = (inp @ w).detach()
print(z.grad_fn, z.requires_grad)

g = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)[0]
print(g)
print(torch.autograd.grad(g.sum(), x)[0])


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = Square.apply(x)
print(y, type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad)

x = torch.tensor([1.0, -2.0], requires_grad=True)
h = x.register_hook(lambda g: g * 10)
(x * x).sum().backward()
print(x.grad)
h.remove()
