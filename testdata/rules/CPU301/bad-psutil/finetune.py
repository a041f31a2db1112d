"""Fine-tunes DistilBERT for IMDB sentiment on one GPU."""
import argparse

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from data_setup import make_loaders

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="distilbert-base-uncased")
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()

tokenizer = AutoTokenizer.from_pretrained(args.model)
train_loader, test_loader = make_loaders(tokenizer, args.batch_size)

model = AutoModelForSequenceClassification.from_pretrained(
    args.model, num_labels=2).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
for epoch in range(args.epochs):
    model.train()
    for batch in train_loader:
        batch = {k: v.cuda() for k, v in batch.items()}
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
model.save_pretrained("/outputs/distilbert-imdb")
