"""Trains a small DLRM-style recommender on click logs (one GPU)."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class DLRM(nn.Module):
    def __init__(self, dense_features, embedding_rows, dim):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(dense_features, dim), nn.ReLU())
        self.embedding = nn.EmbeddingBag(embedding_rows, dim, mode="sum")
        self.top = nn.Sequential(nn.Linear(2 * dim, 1))

    def forward(self, dense, sparse):
        x = torch.cat([self.bottom(dense), self.embedding(sparse)], dim=1)
        return self.top(x).squeeze(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=2048)
    args = parser.parse_args()

    dense = torch.randn(65536, 13)
    sparse = torch.randint(0, 100000, (65536, 26))
    labels = torch.randint(0, 2, (65536,)).float()
    loader = DataLoader(TensorDataset(dense, sparse, labels),
                        batch_size=args.batch_size, shuffle=True)

    model = DLRM(13, 100000, 64).cuda()
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.01)
    loss_fn = nn.BCEWithLogitsLoss()
    for _ in range(args.epochs):
        for d, s, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(d.cuda(), s.cuda()), y.cuda())
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
