# The reference's complete single-process training loop ("Setup" and "Training"), as written
# there, on a small synthetic dataset and for 3 epochs instead of 100: MyModel with its buffer,
# AdamW, CosineAnnealingLR, DataLoaders with 4 worker processes and pin_memory,
# clip_grad_norm_, validation under no_grad, and the print line.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


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


# Ten classes of 64-dimensional points around random centres (not in the reference, which
# leaves train_dataset and val_dataset to the reader).
torch.manual_seed(0)
centres = torch.randn(10, 64)


def make_dataset(n):
    labels = torch.randint(0, 10, (n,))
    return TensorDataset(centres[labels] + 1.5 * torch.randn(n, 64), labels)


train_dataset, val_dataset = make_dataset(640), make_dataset(320)

# ── Setup ──
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = MyModel(input_dim=64, hidden_dim=256, num_classes=10).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)

train_loader = DataLoader(train_dataset, batch_size=32, shuffle=True,
                          num_workers=4, pin_memory=True)
val_loader = DataLoader(val_dataset, batch_size=64, shuffle=False,
                        num_workers=4, pin_memory=True)

# ── Training ──
for epoch in range(3):

    # ── Train phase ──
    model.train()
    train_loss = 0.0

    for batch_idx, (data, target) in enumerate(train_loader):
        data = data.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)

        optimizer.zero_grad()

        output = model(data)
        loss = criterion(output, target)

        loss.backward()

        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)

        optimizer.step()

        train_loss += loss.item()

    # ── Validation phase ──
    model.eval()
    val_loss = 0.0
    correct = 0

    with torch.no_grad():
        for data, target in val_loader:
            data = data.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)

            output = model(data)
            val_loss += criterion(output, target).item()

            pred = output.argmax(dim=1)
            correct += (pred == target).sum().item()

    # ── Scheduler step ──
    scheduler.step()

    # ── Logging ──
    avg_train = train_loss / len(train_loader)
    avg_val = val_loss / len(val_loader)
    accuracy = correct / len(val_dataset)
    lr = optimizer.param_groups[0]['lr']
    print(f"Epoch {epoch} | Train: {avg_train:.4f} | Val: {avg_val:.4f} | "
          f"Acc: {accuracy:.4f} | LR: {lr:.6f}")

print("step_count:", model.step_count.item())
