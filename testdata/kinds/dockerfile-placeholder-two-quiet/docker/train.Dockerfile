FROM nvcr.io/nvidia/pytorch:24.05-py3
WORKDIR /workspace
COPY requirements.txt /tmp/requirements.txt
RUN pip install --no-cache-dir -r /tmp/requirements.txt
COPY src/ /workspace/
CMD python /workspace/finetune.py --data /data/alpaca
