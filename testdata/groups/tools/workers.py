import multiprocessing

WORKERS = multiprocessing.cpu_count()
