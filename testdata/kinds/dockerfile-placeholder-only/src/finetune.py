"""LoRA fine-tuning of a causal LM on an instruction dataset."""
import argparse

import torch
from datasets import load_from_disk
from peft import LoraConfig, get_peft_model
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--workers", type=int, default=12)
    args = ap.parse_args()

    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
    model = get_peft_model(model, LoraConfig(r=8, task_type="CAUSAL_LM")).cuda()
    data = load_from_disk(args.data).with_format("torch")
    loader = DataLoader(data, batch_size=8, shuffle=True,
                        num_workers=args.workers, pin_memory=True)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
    for batch in loader:
        out = model(**{k: v.cuda() for k, v in batch.items()})
        out.loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
