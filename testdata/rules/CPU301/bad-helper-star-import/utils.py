# -*- coding: utf-8 -*-
"""Label conversion and settings for the CRNN OCR scripts."""
import multiprocessing

import torch

alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
imgH = 32
nc = 1
# leave one core to the main process
N_CPU = multiprocessing.cpu_count() - 1


class strLabelConverter(object):
    def __init__(self, alphabet):
        self.dict = {c: i + 1 for i, c in enumerate(alphabet)}

    def encode(self, text):
        return torch.IntTensor([self.dict[c] for c in text])
