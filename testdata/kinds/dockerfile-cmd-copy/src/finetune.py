"""Fine-tunes a causal LM on a tokenized dataset with LoRA."""
import argparse

import torch
from datasets import load_from_disk
from peft import LoraConfig, get_peft_model
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=1)
    args = ap.parse_args()

    model = AutoModelForCausalLM.from_pretrained("/models/base").cuda()
    model = get_peft_model(model, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]))
    data = load_from_disk("/data/tokenized").with_format("torch")
    loader = DataLoader(data, batch_size=8, shuffle=True, num_workers=8)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
    for _ in range(args.epochs):
        for batch in loader:
            loss = model(**{k: v.cuda() for k, v in batch.items()}).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
    model.save_pretrained("/output")


if __name__ == "__main__":
    main()
