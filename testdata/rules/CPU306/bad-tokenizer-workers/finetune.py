"""Fine-tune BERT for sentence classification; the reviews are tokenized
in the Dataset, one at a time, inside the DataLoader workers."""
import argparse
import csv

import torch
from torch.utils.data import DataLoader, Dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer


class Reviews(Dataset):
    def __init__(self, path, tokenizer, max_length=128):
        with open(path, newline="") as f:
            self.rows = [(r["text"], int(r["label"])) for r in csv.DictReader(f)]
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        text, label = self.rows[i]
        enc = self.tokenizer(text, truncation=True, padding="max_length",
                             max_length=self.max_length, return_tensors="pt")
        item = {k: v.squeeze(0) for k, v in enc.items()}
        item["labels"] = torch.tensor(label)
        return item


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", default="/data/reviews/train.csv")
    parser.add_argument("--model", default="bert-base-uncased")
    args = parser.parse_args()

    tokenizer = AutoTokenizer.from_pretrained(args.model, use_fast=True)
    model = AutoModelForSequenceClassification.from_pretrained(
        args.model, num_labels=2).cuda()
    loader = DataLoader(Reviews(args.train, tokenizer), batch_size=32,
                        shuffle=True, num_workers=3)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    model.train()
    for batch in loader:
        batch = {k: v.cuda() for k, v in batch.items()}
        loss = model(**batch).loss
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
