"""ESC-50 clips as log-mel spectrograms."""
import os

import pandas as pd
import torch
import torchaudio
from torch.utils.data import DataLoader, Dataset


class ESC50(Dataset):
    def __init__(self, root, folds):
        meta = pd.read_csv(os.path.join(root, "meta", "esc50.csv"))
        self.meta = meta[meta.fold.isin(folds)].reset_index(drop=True)
        self.audio = os.path.join(root, "audio")
        self.mel = torchaudio.transforms.MelSpectrogram(44100, n_mels=128)

    def __len__(self):
        return len(self.meta)

    def __getitem__(self, i):
        row = self.meta.iloc[i]
        wave, _ = torchaudio.load(os.path.join(self.audio, row.filename))
        return torch.log1p(self.mel(wave)), int(row.target)


def make_loaders(root, batch_size=64):
    train = DataLoader(ESC50(root, folds=[1, 2, 3, 4]), batch_size=batch_size,
                       shuffle=True, num_workers=4, pin_memory=True)
    val = DataLoader(ESC50(root, folds=[5]), batch_size=batch_size,
                     num_workers=2)
    return train, val
