import torch
import torch.nn as nn


def main():
    net = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(64, 256)
    y = torch.randint(0, 10, (64,))
    for _ in range(100):
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()


if __name__ == "__main__":
    main()
