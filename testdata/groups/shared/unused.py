"""A module no script imports: judged on its own."""
import os
from multiprocessing import Pool

pool = Pool(os.cpu_count())
