// The unit tests' main: doctest's, plus one rule of our own. A run that executes no test case
// fails: ctest runs one test case per entry (`--test-case=<name>`), and a name that the filter
// cannot match (a `;` splits a ctest entry in two) would otherwise pass while running nothing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cstdio>
#include <doctest/doctest.h>

namespace {

unsigned test_cases_run = 0;

// Counts the test cases that ran; every other event is of no interest here.
struct RunCounter final : doctest::IReporter {
    explicit RunCounter(const doctest::ContextOptions& /*options*/) {}
    void report_query(const doctest::QueryData& /*data*/) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats& stats) override {
        test_cases_run = stats.numTestCasesPassingFilters;
    }
    void test_case_start(const doctest::TestCaseData& /*data*/) override {}
    void test_case_reenter(const doctest::TestCaseData& /*data*/) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& /*stats*/) override {}
    void test_case_exception(const doctest::TestCaseException& /*e*/) override {}
    void subcase_start(const doctest::SubcaseSignature& /*signature*/) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData& /*data*/) override {}
    void log_message(const doctest::MessageData& /*data*/) override {}
    void test_case_skipped(const doctest::TestCaseData& /*data*/) override {}
};

REGISTER_LISTENER("sdscprov-run-counter", 1, RunCounter);

} // namespace

int main(int argc, char** argv) {
    doctest::Context context(argc, argv);
    int rc = context.run();
    if (context.shouldExit()) { // --help, --list-test-cases, ...
        return rc;
    }
    if (test_cases_run == 0) {
        std::fprintf(stderr, "sdscprov_unit_tests: no test case matched the filters: this run "
                             "tested nothing, which is a failure\n");
        return rc != 0 ? rc : 1;
    }
    return rc;
}
