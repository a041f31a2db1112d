"""Trains a small conformer on LibriSpeech train-clean-100 on CPU."""
import multiprocessing

import torch

from asr.data import make_loader

torch.set_num_threads(multiprocessing.cpu_count())


def main():
    loader = make_loader("/data/librispeech", batch_size=16)
    model = torch.nn.LSTM(80, 256, num_layers=3, batch_first=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for feats, _ in loader:
        out, _ = model(feats)
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
