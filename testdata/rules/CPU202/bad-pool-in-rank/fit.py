"""Exact GP regression; the kernel's Cholesky factor in scipy each step."""
import numpy as np
import scipy.linalg
import torch

x = torch.linspace(0, 1, 512).unsqueeze(1)
y = torch.sin(6 * x).squeeze(1) + 0.1 * torch.randn(512)
log_ls = torch.zeros(1, requires_grad=True)
opt = torch.optim.Adam([log_ls], lr=0.05)
for step in range(200):
    k = torch.exp(-torch.cdist(x, x) ** 2 / torch.exp(log_ls))
    k = k + 1e-3 * torch.eye(512)
    chol = scipy.linalg.cholesky(k.detach().numpy(), lower=True)
    alpha = torch.from_numpy(scipy.linalg.cho_solve((chol, True), y.numpy()))
    loss = -(y * (k @ alpha)).sum() / 512 + 2 * np.log(np.diag(chol)).sum() / 512
    opt.zero_grad()
    loss.backward()
    opt.step()
