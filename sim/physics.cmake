# Performance models of the simulated world: training step time (compute, ring all-reduce over
# NVLink/PCIe/RDMA/TCP with rack oversubscription, input stall).
gantry_library(gantry_sim_physics SOURCES step_time.cpp checkpoint_model.cpp DEPS gantry_cluster)
# The step-time model as the goodput elasticity policy's ThroughputModel.
gantry_library(gantry_sim_throughput SOURCES step_time_throughput.cpp
               DEPS gantry_sim_physics gantry_policy)
