"""Knowledge distillation from an exported ONNX teacher (CPU) into a
ResNet-18 student (GPU)."""
import argparse

import numpy as np
import onnxruntime as ort
import torch
import torch.nn.functional as F
from torchvision.models import resnet18

parser = argparse.ArgumentParser()
parser.add_argument("--teacher", required=True)
parser.add_argument("--steps", type=int, default=1000)
args = parser.parse_args()

teacher = ort.InferenceSession(args.teacher,
                               providers=["CPUExecutionProvider"])
input_name = teacher.get_inputs()[0].name

student = resnet18(num_classes=1000).cuda()
opt = torch.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
for step in range(args.steps):
    x = torch.randn(32, 3, 224, 224)
    with torch.no_grad():
        logits = teacher.run(None, {input_name: x.numpy().astype(np.float32)})[0]
    target = torch.from_numpy(logits).cuda()
    out = student(x.cuda())
    loss = F.kl_div(F.log_softmax(out, 1), F.softmax(target, 1),
                    reduction="batchmean")
    opt.zero_grad()
    loss.backward()
    opt.step()
