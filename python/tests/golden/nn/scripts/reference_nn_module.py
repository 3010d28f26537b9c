# The reference's nn.Module section (pytorch-first-tensor-to-distributed.txt, "import torch.nn as
# nn" to the state_dict patterns) as a PyTorch user runs it: its output under ember-python must
# be PyTorch 1.13's (reference_nn_module.expected, written by ../generate.py).
import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)


class MyModel(nn.Module):
    def __init__(self, input_dim, hidden_dim, num_classes):
        super().__init__()

        # PARAMETERS — learned, in state_dict, moved by .to()
        self.linear1 = nn.Linear(input_dim, hidden_dim)  # has .weight and .bias params
        self.linear2 = nn.Linear(hidden_dim, num_classes)

        # BUFFER — not learned, but in state_dict, moved by .to()
        self.register_buffer('step_count', torch.zeros(1))

        # PLAIN ATTRIBUTE — not in state_dict, not moved
        self.hidden_dim = hidden_dim  # just a config value

    def forward(self, x):
        self.step_count += 1               # buffers update without grad
        x = torch.relu(self.linear1(x))
        return self.linear2(x)


model = MyModel(64, 128, 10)

# Iterate all parameters (recursive through submodules)
for name, param in model.named_parameters():
    print(f"{name}: shape={param.shape}, requires_grad={param.requires_grad}")

# Iterate buffers
for name, buf in model.named_buffers():
    print(f"{name}: {buf}")

# Iterate submodules
for name, module in model.named_modules():
    print(f"{name}: {type(module).__name__}")

# Count parameters
total_params = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(total_params, trainable)
print(model)
print(list(model.state_dict().keys()))
print(model.hidden_dim, 'hidden_dim' in model.state_dict())

# The building blocks
print(nn.Linear(in_features=64, out_features=128, bias=True))
print(nn.Conv2d(in_channels=3, out_channels=64, kernel_size=3, stride=1, padding=1))
print(nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1)(torch.randn(2, 3, 8, 8)).shape)
print(nn.BatchNorm1d(num_features=128))
print(nn.BatchNorm2d(num_features=64))
print(nn.LayerNorm(normalized_shape=128))
print(nn.GroupNorm(num_groups=8, num_channels=64))
print(nn.ReLU())
print(nn.GELU())
print(nn.SiLU())
print(nn.Dropout(p=0.1))
emb = nn.Embedding(num_embeddings=10000, embedding_dim=256)
print(emb)
print(emb(torch.randint(0, 10000, (4, 7))).shape)
mha = nn.MultiheadAttention(embed_dim=256, num_heads=8)
print(mha)
print([(n, tuple(p.shape)) for n, p in mha.named_parameters()])
enc = nn.TransformerEncoderLayer(d_model=256, nhead=8, dim_feedforward=1024)
print(enc)
print(sum(p.numel() for p in enc.parameters()))

seq = nn.Sequential(
    nn.Linear(64, 128),
    nn.ReLU(),
    nn.Linear(128, 10),
)
print(seq)
print(seq[0], len(seq))

# Forward hook — runs after a module's forward()
activations = {}


def save_activation(name):
    def hook(module, input, output):
        activations[name] = output.detach()
    return hook


x = torch.randn(32, 64)
model.linear1.register_forward_hook(save_activation('linear1'))
output = model(x)
print(activations['linear1'].shape)   # captured intermediate output
print(model.step_count)


# Backward hook — runs when gradients flow through a module
def print_grad(name):
    def hook(module, grad_input, grad_output):
        print(f"{name} grad_output norm: {grad_output[0].norm():.4f}")
    return hook


target = torch.randint(0, 10, (32,))
criterion = nn.CrossEntropyLoss()
loss = criterion(output, target)
model.linear2.register_full_backward_hook(print_grad('linear2'))
loss.backward()  # this forward ran before the hook was registered: nothing printed
print("after the first backward")
model.zero_grad()
output = model(x)
loss = criterion(output, target)
loss.backward()  # prints gradient norm as it flows through linear2
print(f"loss {loss.item():.4f}")
print(f"grad norm {model.linear1.weight.grad.norm():.4f}")
total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"total norm {total:.4f}, after clipping {torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9):.4f}")

model.train()
print(model.training, model.linear1.training)
model.eval()
print(model.training, model.linear1.training)
with torch.no_grad():
    pred = model(x).argmax(dim=1)
print(pred.shape, model.step_count)

model = nn.Linear(3, 2)
print(model.state_dict())

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, 'model_weights.pt')
    torch.save(model.state_dict(), path)
    model2 = nn.Linear(3, 2)
    print(model2.load_state_dict(torch.load(path, weights_only=True)))
    print(torch.equal(model2.weight, model.weight), torch.equal(model2.bias, model.bias))

    big = MyModel(64, 128, 10)
    torch.save(big.state_dict(), path)
    state = torch.load(path, weights_only=True)
    state.pop('linear2.bias')
    state['head.weight'] = torch.zeros(1)
    small = MyModel(64, 128, 10)
    print(small.load_state_dict(state, strict=False))
    try:
        small.load_state_dict(state)
    except RuntimeError as e:
        print(e)
