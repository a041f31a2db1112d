import jax
import jax.numpy as jnp

jax.distributed.initialize()
x = jnp.ones((1024, 1024))
print(jax.device_count(), float((x @ x).sum()))
