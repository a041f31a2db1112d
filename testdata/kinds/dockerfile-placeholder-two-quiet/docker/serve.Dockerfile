FROM python:3.11-slim
RUN pip install --no-cache-dir fastapi==0.111.0 uvicorn==0.30.1 torch==2.3.1
COPY src/ /app/
CMD ["uvicorn", "app.serve:app", "--host", "0.0.0.0", "--workers", "2"]
