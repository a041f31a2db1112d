"""ResNet-50 in PyTorch on ImageNet TFRecords read with tf.data."""
import argparse

import numpy as np
import tensorflow as tf
import torch
from torchvision.models import resnet50

parser = argparse.ArgumentParser()
parser.add_argument("--records", default="/data/imagenet/train-*")
parser.add_argument("--batch-size", type=int, default=64)
args = parser.parse_args()


def parse(record):
    feats = tf.io.parse_single_example(record, {
        "image/encoded": tf.io.FixedLenFeature([], tf.string),
        "image/class/label": tf.io.FixedLenFeature([], tf.int64),
    })
    image = tf.image.decode_jpeg(feats["image/encoded"], channels=3)
    image = tf.image.resize(image, [224, 224]) / 255.0
    return image, feats["image/class/label"] - 1


files = tf.data.Dataset.list_files(args.records)
ds = (tf.data.TFRecordDataset(files)
      .map(parse, num_parallel_calls=tf.data.AUTOTUNE)
      .batch(args.batch_size)
      .prefetch(2))

model = resnet50().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss()
for images, labels in ds.as_numpy_iterator():
    x = torch.from_numpy(np.transpose(images, (0, 3, 1, 2))).cuda()
    y = torch.from_numpy(labels).cuda()
    loss = loss_fn(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
