"""Image decoding shared by the datasets."""
import cv2

# One OpenCV thread per process: the DataLoader workers are the
# parallelism, and they inherit this when they fork.
cv2.setNumThreads(0)


def load_image(path):
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(path)
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
