ARG TORCH=2.3.1
FROM pytorch/pytorch:${TORCH}-cuda12.1-cudnn8-runtime
WORKDIR /workspace
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY src/ /workspace/
CMD ["python", "/workspace/pretrain.py", "--config", "/workspace/bert-base.json"]
