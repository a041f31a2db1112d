"""Masked-LM pretraining of a BERT-base model on a tokenized corpus."""
import argparse

import torch
from datasets import load_from_disk
from torch.utils.data import DataLoader
from transformers import BertConfig, BertForMaskedLM, DataCollatorForLanguageModeling, BertTokenizerFast


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--workers", type=int, default=16)
    args = ap.parse_args()

    tok = BertTokenizerFast.from_pretrained("bert-base-uncased")
    model = BertForMaskedLM(BertConfig.from_json_file(args.config)).cuda()
    data = load_from_disk("/data/corpus-tokenized")
    collate = DataCollatorForLanguageModeling(tok, mlm_probability=0.15)
    loader = DataLoader(data, batch_size=32, shuffle=True, collate_fn=collate,
                        num_workers=args.workers, pin_memory=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for batch in loader:
        out = model(**{k: v.cuda() for k, v in batch.items()})
        out.loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
