"""Distils a teacher MLP into a smaller student on tensors in memory."""
import torch
from torch import nn

teacher = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 10))
student = nn.Sequential(nn.Linear(512, 256), nn.GELU(), nn.Linear(256, 10))
features = torch.load("/data/features.pt")
opt = torch.optim.AdamW(student.parameters(), lr=1e-3)

for epoch in range(20):
    for batch in features.split(1024):
        with torch.no_grad():
            target = teacher(batch).softmax(-1)
        loss = nn.functional.kl_div(student(batch).log_softmax(-1), target,
                                    reduction="batchmean")
        opt.zero_grad()
        loss.backward()
        opt.step()
