# Performance models of the simulated world: training step time (compute, ring all-reduce over
# NVLink/PCIe/RDMA/TCP with rack oversubscription, input stall).
gantry_library(gantry_sim_physics SOURCES step_time.cpp checkpoint_model.cpp DEPS gantry_cluster)
