"""Fine-tunes a small TTS decoder on CPU, one process per data shard."""
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(torch.multiprocessing.cpu_count())


def run(rank):
    data = TensorDataset(torch.randn(4096, 80), torch.randn(4096, 80))
    loader = DataLoader(data, batch_size=32, num_workers=mp.cpu_count() - 1)
    model = torch.nn.GRU(80, 80, batch_first=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for x, y in loader:
        out, _ = model(x.unsqueeze(1))
        loss = (out.squeeze(1) - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    mp.spawn(run, nprocs=1)
