// Runs iterscope-cli (or another program) in a test and captures what it prints.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

struct CliResult {
    int exit_code = -1;
    bool crashed = false;
    QByteArray out;
    QByteArray err;
    // The number of non-empty lines on stderr: errors must be one line.
    int errLines() const {
        int n = 0;
        for (const QByteArray& line : err.split('\n'))
            n += line.trimmed().isEmpty() ? 0 : 1;
        return n;
    }
};

inline CliResult runProgram(const QString& program, const QStringList& args,
                            int timeout_ms = 120000) {
    QProcess p;
    p.start(program, args);
    CliResult r;
    if (!p.waitForStarted(timeout_ms))
        return r;
    p.closeWriteChannel();
    if (!p.waitForFinished(timeout_ms)) {
        p.kill();
        p.waitForFinished();
        r.crashed = true;
        return r;
    }
    r.crashed = p.exitStatus() != QProcess::NormalExit;
    r.exit_code = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

inline CliResult runCli(const QStringList& args, int timeout_ms = 120000) {
    return runProgram(QStringLiteral(ITERSCOPE_CLI_PATH), args, timeout_ms);
}
