"""LibriSpeech loading: log-mel features, padded batches."""
from multiprocessing import cpu_count

import torch
import torchaudio
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def collate(batch):
    feats = [f for f, _ in batch]
    texts = [t for _, t in batch]
    return pad_sequence(feats, batch_first=True), texts


def make_loader(root, batch_size):
    mel = torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_mels=80)

    def featurize(item):
        waveform, _, text, *_ = item
        return mel(waveform).squeeze(0).transpose(0, 1), text

    dataset = torchaudio.datasets.LIBRISPEECH(root, url="train-clean-100")
    return DataLoader(
        [featurize(x) for x in dataset],
        batch_size=batch_size,
        shuffle=True,
        collate_fn=collate,
        num_workers=cpu_count(),
    )
