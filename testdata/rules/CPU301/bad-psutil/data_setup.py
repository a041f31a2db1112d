"""Tokenized IMDB splits and their DataLoaders."""
import psutil
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding


def tokenized_imdb(tokenizer, max_length=256):
    raw = load_dataset("imdb")

    def encode(batch):
        return tokenizer(batch["text"], truncation=True, max_length=max_length)

    return raw.map(
        encode,
        batched=True,
        num_proc=psutil.cpu_count(logical=False),
        remove_columns=["text"],
    )


def make_loaders(tokenizer, batch_size, workers=2):
    data = tokenized_imdb(tokenizer).with_format("torch")
    collate = DataCollatorWithPadding(tokenizer)
    train = DataLoader(data["train"], batch_size=batch_size, shuffle=True,
                       collate_fn=collate, num_workers=workers)
    test = DataLoader(data["test"], batch_size=batch_size,
                      collate_fn=collate, num_workers=workers)
    return train, test
