"""Human keypoint estimation."""
