// A kernel with a deliberate compile error on line 4, for the failure-isolation test.
__kernel void Broken(__global float* out) {
    const uint i = get_global_id(0);
    out[i] = undeclared_value;
}
