"""Causal LM fine-tuning in the shape of the transformers language-modeling
examples: the corpus is tokenized up front in the main process, the model
compiled with torch.compile, the loader reads token ids only."""
import argparse

import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, default_data_collator


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name_or_path", default="gpt2")
    parser.add_argument("--block_size", type=int, default=512)
    args = parser.parse_args()

    raw = load_dataset("wikitext", "wikitext-2-raw-v1", split="train")
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    tokenized = raw.map(lambda ex: tokenizer(ex["text"]), batched=True,
                        remove_columns=["text"])
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path).cuda()
    model = torch.compile(model)
    loader = DataLoader(tokenized, batch_size=8, num_workers=2,
                        collate_fn=default_data_collator)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
    for batch in loader:
        batch = {k: v.cuda() for k, v in batch.items()}
        loss = model(**batch, labels=batch["input_ids"]).loss
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
