// Predicting a fit's training rows again and again as its parameters move, cheaply: a
// change reaches only the rows of the profiles whose values it changes, so only those are
// predicted again (descent.cpp's coordinate descent and leastSquaresStart's
// Levenberg-Marquardt start below both step one or a few parameters at a time).
#pragma once

#include "fitting/published_fit.h"

#include <map>
#include <string>
#include <vector>

namespace iterscope {

class FitEvaluator {
  public:
    FitEvaluator(const FitSpec& spec, const FitProblem& problem,
                 const std::vector<std::size_t>& train, const std::vector<double>& values);

    // Predictions of the training rows (in the order of `train`) with `values`; the rows
    // of untouched profiles keep the accepted predictions. Throws what predict() throws.
    const std::vector<double>& predict(const std::vector<double>& values);
    // The last predict() becomes the reference the next ones start from.
    void accept(const std::vector<double>& values, const std::vector<double>& predicted);

    const std::vector<double>& acceptedValues() const { return m_values; }
    const std::vector<double>& acceptedPredictions() const { return m_predicted; }
    int evaluations() const { return m_evaluations; }

  private:
    const FitSpec& m_spec;
    const FitProblem& m_problem;
    const std::vector<std::size_t>& m_train;
    std::map<std::string, std::vector<std::size_t>> m_train_of_profile; // positions in train
    std::vector<double> m_values, m_predicted, m_candidate;
    int m_evaluations = 0;
};

// ln(predicted / measured) of every training row, throughput-signed like the bands.
std::vector<double> logErrors(const FitProblem& problem, const std::vector<std::size_t>& train,
                              const std::vector<double>& predicted);

// A Levenberg-Marquardt descent in the logarithms of the free parameters on the rows' log
// errors, robust to outliers (Huber weights), within each parameter's bounds: it moves many
// parameters at once along the valleys where they trade off, which one-at-a-time steps
// cross slowly or not at all. Returns the values it reaches; `evaluator` keeps them.
std::vector<double> leastSquaresStart(const FitSpec& spec, const FitProblem& problem,
                                      const std::vector<std::size_t>& train,
                                      const std::vector<std::size_t>& free,
                                      FitEvaluator& evaluator);

} // namespace iterscope
