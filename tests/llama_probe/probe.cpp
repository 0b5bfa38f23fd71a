// A probe of llama.cpp's own JSON-Schema-to-GBNF converter and GBNF matcher, without a
// model, for tests/engine_support.py. Built from the llama.cpp sources vendored in the
// llama-cpp-python sdist (common/json-schema-to-grammar.cpp and what it needs, and
// src/llama-grammar.cpp), linked with stubs.cpp.
//
// Reads one request per line on stdin (JSON):
//   {"schema": {...}}                          -> {"grammar": "...", "warnings": "..."} or {"error": "..."}
//   {"grammar": "...", "text": "..."}          -> {"accepted": bool (whole), "prefix": bool}
//   {"grammar": "...", "text": "...", "next": true} -> {"next": [code points below U+0250
//       allowed after text], "complete": bool}
#include "json-schema-to-grammar.h"
#include "json.h"
#include "../src/llama-grammar.h"
#include <iostream>
#include <sstream>
#include <string>
#include <cstdio>
#include <unistd.h>

static llama_grammar * build(const std::string & g) {
    return llama_grammar_init_impl(nullptr, g.c_str(), "root", false, nullptr, 0, nullptr, 0);
}

// Feeds text; returns 0 refused, 1 accepted as prefix, 2 accepted and complete.
static int feed(llama_grammar * gr, const std::string & text) {
    try {
        llama_grammar_accept_str(*gr, text);
    } catch (const std::exception &) {
        return 0;
    }
    for (const auto & st : gr->stacks) if (st.empty()) return 2;
    return 1;
}

static std::string utf8(uint32_t cp) {
    std::string s;
    if (cp < 0x80) s += (char)cp;
    else if (cp < 0x800) { s += (char)(0xC0 | (cp >> 6)); s += (char)(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) { s += (char)(0xE0 | (cp >> 12)); s += (char)(0x80 | ((cp >> 6) & 0x3F)); s += (char)(0x80 | (cp & 0x3F)); }
    else { s += (char)(0xF0 | (cp >> 18)); s += (char)(0x80 | ((cp >> 12) & 0x3F)); s += (char)(0x80 | ((cp >> 6) & 0x3F)); s += (char)(0x80 | (cp & 0x3F)); }
    return s;
}

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        auto req = common_json::parse(line);
        auto out = common_json::object();
        if (req.contains("schema")) {
            // Capture the converter's warnings (printed on stderr).
            char buf[65536] = {0};
            fflush(stderr);
            int saved = dup(2);
            FILE * tmp = tmpfile();
            dup2(fileno(tmp), 2);
            try {
                out["grammar"] = json_schema_to_grammar(req["schema"], true);
            } catch (const std::exception & e) {
                out["error"] = std::string(e.what());
            }
            fflush(stderr);
            dup2(saved, 2);
            close(saved);
            rewind(tmp);
            size_t n = fread(buf, 1, sizeof(buf) - 1, tmp);
            fclose(tmp);
            out["warnings"] = std::string(buf, n);
        } else {
            std::string g = req["grammar"].get<std::string>();
            std::string text = req["text"].get<std::string>();
            llama_grammar * gr = build(g);
            if (!gr) {
                out["error"] = "the grammar does not parse";
            } else if (req.contains("next")) {
                int r = feed(gr, text);
                auto allowed = common_json::array();
                if (r) {
                    for (uint32_t cp = 1; cp < 0x250; ++cp) {
                        llama_grammar * c = llama_grammar_clone_impl(*gr);
                        if (feed(c, utf8(cp))) allowed.push_back((int)cp);
                        llama_grammar_free_impl(c);
                    }
                }
                out["next"] = allowed;
                out["complete"] = r == 2;
            } else {
                int r = feed(gr, text);
                out["accepted"] = r == 2;
                out["prefix"] = r >= 1;
            }
            if (gr) llama_grammar_free_impl(gr);
        }
        std::cout << out.dump() << std::endl;
    }
    return 0;
}
