// Builds the precompiled header every GoogleTest test reuses (tests/CMakeLists.txt,
// gsr_test_pch). It must be an executable so that its flags, -fPIE among them, are the tests'.
int main() { return 0; }
