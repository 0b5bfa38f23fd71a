// Link stubs for the probe: string helpers as in common/common.cpp, and the model-side
// symbols llama-grammar.cpp references but never calls without a vocabulary.
#include <string>
#include <vector>
#include <sstream>
#include <cstdio>
#include <cstdlib>
#include <cstdarg>
#include "llama-vocab.h"
#include "llama-impl.h"
std::string string_join(const std::vector<std::string> & v, const std::string & sep) {
    std::ostringstream r; for (size_t i = 0; i < v.size(); ++i) { if (i) r << sep; r << v[i]; } return r.str();
}
std::vector<std::string> string_split(const std::string & s, const std::string & d) {
    std::vector<std::string> p; size_t a = 0, e = s.find(d);
    while (e != std::string::npos) { p.push_back(s.substr(a, e - a)); a = e + d.length(); e = s.find(d, a); }
    p.push_back(s.substr(a)); return p;
}
std::string string_repeat(const std::string & s, size_t n) { std::string r; for (size_t i = 0; i < n; ++i) r += s; return r; }
extern "C" void ggml_abort(const char * file, int line, const char * fmt, ...) { fprintf(stderr, "abort %s:%d\n", file, line); abort(); }
void llama_log_internal(ggml_log_level, const char *, ...) {}
bool llama_vocab::is_eog(llama_token) const { abort(); }
const std::string & llama_vocab::token_to_piece(llama_token) const { abort(); }
int32_t llama_vocab::tokenize(const char *, int32_t, llama_token *, int32_t, bool, bool) const { abort(); }
