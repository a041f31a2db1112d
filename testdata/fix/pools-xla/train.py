"""A small MLP trained with torch on the CPU; the validation metrics are
computed with jax.numpy."""
import jax.numpy as jnp
import torch
from torch import nn

model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()


def accuracy(logits, labels):
    return float(jnp.mean(jnp.argmax(jnp.asarray(logits), axis=-1) ==
                          jnp.asarray(labels)))


for step in range(10000):
    x = torch.randn(256, 64)
    y = torch.randint(0, 10, (256,))
    out = model(x)
    loss = loss_fn(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(step, accuracy(out.detach().numpy(), y.numpy()))
