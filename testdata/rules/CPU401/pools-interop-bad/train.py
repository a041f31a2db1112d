"""Eager CPU training of a small transformer encoder with both of torch's
pools sized by hand, as the CPU performance tuning guides show."""
import torch
from torch import nn

torch.set_num_threads(2)
torch.set_num_interop_threads(4)

layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, batch_first=True)
model = nn.TransformerEncoder(layer, num_layers=4)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(1000):
    x = torch.randn(16, 128, 256)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
