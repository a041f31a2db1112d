"""Imports the libraries, runs none of their pools: numpy for a seed,
transformers for the model, TensorFlow only to hide its GPUs."""
import numpy as np
import tensorflow as tf
import torch
from transformers import AutoModelForCausalLM

tf.config.set_visible_devices([], "GPU")
np.random.seed(0)
model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()
opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
for step in range(100):
    ids = torch.randint(0, 50257, (8, 128)).cuda()
    loss = model(input_ids=ids, labels=ids).loss
    opt.zero_grad()
    loss.backward()
    opt.step()
