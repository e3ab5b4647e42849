// Grid-stride element-wise loop on get_global_size: every work-item handles
// several elements spread over the whole buffer.
// LAUNCH kernel=scale_all global=64 local=16
// ARG in buffer float 700 random ro
// ARG out buffer float 700 zero
// ARG n scalar int 700
// ARG factor scalar float 2.5
__kernel void scale_all(__global const float* in, __global float* out, int n, float factor) {
  for (size_t i = get_global_id(0); i < (size_t)n; i += get_global_size(0))
    out[i] = in[i] * factor + (float)(i % 7);
}
