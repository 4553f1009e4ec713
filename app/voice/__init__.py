"""Voice input: push-to-talk recording (sounddevice) and transcription on this computer.

Whisper runs through faster-whisper (CTranslate2); sound stays in memory. The faces use
`hearth.Voice` (`voice.py`). Modules are imported directly (`hearth.voice.service`, ...), so
`import hearth.voice` loads neither PortAudio nor the model runtime.
"""
